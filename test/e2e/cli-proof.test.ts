import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PRINCIPALS } from '../support/principals.js';
import { cliProofRig, type CliProofRig } from '../support/cli-proof-rig.js';
import type { HarnessFixture } from '../support/harness.js';
import type { CliResult } from './cli-support.js';
import type { OtlpSpan, OtlpTraces } from '../../src/client/evidence/otel-genai.js';
import { otelTraceIdForRun } from '../../src/contract/run-trace.js';

/**
 * `harness verify <runId>`, `harness export <runId> --bundle <file>` and `harness verify --bundle
 * <file>` (docs/evidence-chain.md) as an operator and an auditor run them: a refund run with an
 * approval verifies from the store and Temporal, and its bundle verifies in a fresh directory with no
 * store, server or app configured.
 */
describe('harness verify and export', () => {
  let rig: CliProofRig;
  let h: HarnessFixture;
  let runId = '';
  const cli = (...args: string[]): Promise<CliResult> => rig.cli(...args);
  /** `harness <args>` in `cwd` with nothing of the harness's environment: no store, no server, no app. */
  const bare = (cwd: string, ...args: string[]): Promise<CliResult> => rig.bare(cwd, ...args);

  beforeAll(async () => {
    // The CLI gets the registry only: verify and export sign nothing.
    rig = await cliProofRig('cli-proof', {
      task: { message: 'My order ORD-1001 has not shipped for days, please refund', customerId: 'C1001' },
    });
    h = rig.h;
    runId = rig.runId;
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
  });

  it('verifies the run from its store and history: a PASS line per check, exit 0', async () => {
    const r = await cli('verify', runId);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('PASS'))).toHaveLength(11);
    for (const code of [
      'chain.ok',
      'heads.ok',
      'seal.ok',
      'commits.ok',
      'decisions.ok',
      'writes.ok',
      'history.ok',
      'artifacts.ok',
      'policy.ok',
      'commitments.ok',
      'erasures.ok',
    ])
      expect(r.stdout).toContain(code);
    expect(lines.at(-1)).toBe(`verified: run ${runId}`);
    const json = await cli('verify', runId, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ runId, ok: true });
  });

  it('exports a bundle that verifies in a fresh directory, and fails when edited', async () => {
    const file = join(h.dir, 'proof.json');
    const exported = await cli('export', runId, '--bundle', file);
    expect(exported.code, exported.stderr).toBe(0);
    const fresh = mkdtempSync(join(tmpdir(), 'harness-auditor-'));
    writeFileSync(join(fresh, 'proof.json'), readFileSync(file));
    const ok = await bare(fresh, 'verify', '--bundle', 'proof.json');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`verified: run ${runId}`);

    const original = readFileSync(file, 'utf8');
    const text = original.replace('\\"decision\\":\\"approved\\"', '\\"decision\\":\\"rejected\\"');
    expect(text).not.toBe(original);
    writeFileSync(join(fresh, 'edited.json'), text);
    const edited = await bare(fresh, 'verify', '--bundle', 'edited.json');
    expect(edited.code).toBe(1);
    expect(edited.stdout).toMatch(/^FAIL +chain +chain\.event_altered/m);
    expect(edited.stdout).toContain('NOT verified');
  });

  it('prints a bundle value with terminal controls escaped: no forged PASS line, no escape sequence', async () => {
    const file = join(h.dir, 'proof-controls.json');
    const exported = await cli('export', runId, '--bundle', file);
    expect(exported.code, exported.stderr).toBe(0);
    const bundle = JSON.parse(readFileSync(file, 'utf8')) as { runId: string };
    // A run id that clears the screen and starts a line of its own that reads as a passed check.
    bundle.runId = `${runId}\u001b[2J\nPASS  chain        chain.ok  forged\u202e`;
    const fresh = mkdtempSync(join(tmpdir(), 'harness-auditor-'));
    writeFileSync(join(fresh, 'controls.json'), JSON.stringify(bundle));
    const r = await bare(fresh, 'verify', '--bundle', 'controls.json');
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).not.toContain('\u202e');
    expect(r.stdout).not.toMatch(/^PASS +chain +chain\.ok +forged/m);
    expect(r.stdout).toContain(`NOT verified: run ${runId}\\u001b[2J\\u000aPASS  chain`);
  });

  it("checks the decisions against the auditor's registry when given one", async () => {
    const trusted = join(h.dir, 'trusted.json');
    writeFileSync(trusted, JSON.stringify(TEST_PRINCIPALS));
    expect((await cli('verify', runId, '--principals', trusted)).code).toBe(0);
    const other = join(h.dir, 'other.json');
    writeFileSync(
      other,
      JSON.stringify({ ...TEST_PRINCIPALS, principals: TEST_PRINCIPALS.principals.slice(1) }),
    );
    const r = await cli('verify', runId, '--principals', other);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('decisions.registry_untrusted');
  });

  it('refuses what is not a bundle (exit 2) and a missing file or run (exit 3), changing nothing', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'harness-auditor-'));
    writeFileSync(join(fresh, 'not.json'), JSON.stringify({ format: 'something-else' }));
    const bad = await bare(fresh, 'verify', '--bundle', 'not.json');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a proof bundle');
    expect((await bare(fresh, 'verify', '--bundle', 'missing.json')).code).toBe(3);
    expect((await cli('verify', 'no-such-run')).code).toBe(3);
  });

  it('exports the run as OpenTelemetry GenAI spans (--otel): model, tool and decision spans, no decision text', async () => {
    const file = join(h.dir, 'run.otlp.json');
    const r = await cli('export', runId, '--otel', file);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    const traces = JSON.parse(text) as OtlpTraces;
    const spans = traces.resourceSpans[0]!.scopeSpans[0]!.spans;
    const op = (s: OtlpSpan) => s.attributes.find((a) => a.key === 'gen_ai.operation.name')?.value;
    expect(spans[0]!.name).toBe('invoke_agent refund.graph@v1');
    expect(spans.every((s) => s.traceId === otelTraceIdForRun(runId))).toBe(true);
    expect(new Set(spans.map(op).map((v) => JSON.stringify(v)))).toEqual(
      new Set(
        ['invoke_agent', 'chat', 'execute_tool', 'apply_guardrail'].map((o) =>
          JSON.stringify({ stringValue: o }),
        ),
      ),
    );
    expect(spans.map((s) => s.name)).toContain('execute_tool refund.create');
    expect(spans.map((s) => s.name)).toEqual(
      expect.arrayContaining(['apply_guardrail policy', 'apply_guardrail human']),
    );
    const chat = spans.find((s) => s.name.startsWith('chat'))!;
    expect(chat.attributes.map((a) => a.key)).toEqual(
      expect.arrayContaining([
        'gen_ai.request.model',
        'gen_ai.usage.input_tokens',
        'gen_ai.usage.output_tokens',
      ]),
    );
    // The approval's reason and the approver are in the events, not in the spans.
    expect(text).not.toContain('policy R001');
    expect(text).not.toContain('operator@example.com');
    expect((await cli('export', runId)).code).toBe(2);
  });
});
