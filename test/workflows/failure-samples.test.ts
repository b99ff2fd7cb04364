import { runConfigDigest } from '../../src/activities/run-config-digest.js';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runEval } from '../../apps/refund/eval/run-eval.js';
import { readFailureSampleFolder } from '../../src/client/failures/failure-sample-folder.js';
import type { MetricsReport } from '../../src/client/metrics/metrics-report.js';
import { SEED_METRICS } from '../../src/client/metrics/seed-metrics.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { openEvidenceStore, type EvidenceStore } from '../../src/activities/store/index.js';
import { runCli, type CliResult } from '../e2e/cli-support.js';
import { decide } from '../support/decisions.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';

/** A credential in the worker's environment: it must reach no sample. */
const WORKER_KEY = 'sk-live-WORKERplantedWORKERplanted123456';
/** A key a customer pasted into a message (the input guardrail blocks the run). */
const PASTED_KEY = 'sk-test-PASTEDplantedPASTEDplanted654321';
const INJECTED_CODE = 'refund.verify_unavailable';

/**
 * Failure samples of production-style runs (docs/evaluation.md): a worker whose refund.verify is
 * broken (an injected connector failure), its runs on the real dev server, `harness failures` and
 * `harness replay` as separate CLI processes, and the refund evaluation running the case made from
 * the sample.
 */
describe('failure samples from production runs', () => {
  let h: HarnessFixture;
  let store: EvidenceStore;
  let env: NodeJS.ProcessEnv;
  const cli = (...args: string[]): Promise<CliResult> => runCli(args, env, 120_000);
  const ended = async (handle: WorkflowHandle): Promise<void> => {
    await handle.result();
  };

  beforeAll(async () => {
    h = await createHarnessFixture('failures', {
      drills: { toolFailures: [{ tool: 'refund.verify', code: INJECTED_CODE }] },
      env: { OPENAI_API_KEY: WORKER_KEY },
    });
    const storeUrl = `sqlite:${join(h.dir, 'evidence.db')}`;
    store = await openEvidenceStore(storeUrl);
    env = {
      HARNESS_TASK_QUEUE: h.taskQueue,
      HARNESS_STORE_URL: storeUrl,
      HARNESS_REFUND_DB: join(h.dir, 'refund.db'),
      HARNESS_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    };
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await h?.close();
  });

  it('a run failed by an injected tool failure yields a sample that replays to the same failure and, as an eval case, fails the same way', async () => {
    const handle = await h.start({
      task: { message: 'My order ORD-1001 has not shipped for days, please refund', customerId: 'C1001' },
    });
    const waiting = await waitForState(handle, (v: RunView) => v.status === 'awaiting_confirmation');
    await decide(handle, 'approve', { reason: 'policy R001' }, waiting);
    await ended(handle);
    const view = await handle.query<RunView>('state');
    expect(view.status).toBe('failed');
    expect(view.terminalReason?.code).toBe('completion.not_satisfied');

    // Stored with the terminal event, by the worker's store, with the pinned versions.
    // The run's own config digest (agent-run-config-pin-v1): of its model route's definition.
    const runConfig = runConfigDigest(h.composition, { modelRoute: 'scripted/refund' });
    const stored = await store.getFailureSample(handle.workflowId);
    expect(stored).toMatchObject({
      runId: handle.workflowId,
      reason: 'failed',
      status: 'failed',
      code: 'completion.not_satisfied',
      versions: { profile: 'refund.graph@v1', configDigest: runConfig },
    });

    const listed = await cli('failures', 'list', '--reason', 'failed', '--since', '1h', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { runId: string });
    expect(rows.map((r) => r.runId)).toContain(handle.workflowId);

    const dir = join(h.dir, 'samples', handle.workflowId);
    const exported = await cli('failures', 'export', handle.workflowId, '--out', dir);
    expect(exported.code, exported.stderr).toBe(0);
    const { sample, history } = readFailureSampleFolder(dir);
    expect(history.events?.length).toBeGreaterThan(10);
    // A marker-free start: no patch marker, the baseline its memo asked for says which code it took.
    expect(sample.versions.patches).toEqual([]);
    expect(sample.versions.baseline).toBe('v3');
    expect(sample.versions.configDigest).toBe(runConfig);
    expect(sample.inputs.signals.map((s) => s.name)).toEqual(['approve']);
    // The approval's signed token is a credential: the sample keeps the decision, not the token.
    expect(JSON.stringify(sample.inputs.signals)).not.toMatch(/"token"/);
    const failedCall = sample.invocations.find((i) => i.tool === 'refund.verify');
    expect(failedCall).toMatchObject({ status: 'failed_terminal', errorCode: INJECTED_CODE });
    // The terminal event, then the seal (docs/evidence-chain.md).
    expect(sample.events.events.slice(-2).map((e) => e.type)).toEqual(['run.failed', 'run.sealed']);

    // Replay reproduces the failure: the same decisions up to an end with the same code.
    const replayed = await cli('--json', 'replay', dir);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(JSON.parse(replayed.stdout)).toMatchObject({
      ok: true,
      failure: { status: 'failed', code: 'completion.not_satisfied' },
    });

    // As an evaluation case it fails the same way, and the case (which pins that failure) passes.
    const cases = join(h.dir, 'cases');
    const asCase = await cli('failures', 'export', handle.workflowId, '--as-case', '--out', cases);
    expect(asCase.code, asCase.stderr).toBe(0);
    const [caseFile] = readdirSync(cases);
    const evalCase = JSON.parse(readFileSync(join(cases, caseFile!), 'utf8')) as Record<string, unknown>;
    expect(evalCase).toMatchObject({
      expected_terminal_status: 'failed',
      expected_terminal_code: 'completion.not_satisfied',
      tool_failures: [{ tool: 'refund.verify', code: INJECTED_CODE }],
      decisions: ['approve'],
      initial_state: { order_id: 'ORD-1001', order_status: 'paid', logistics_status: 'not_shipped' },
    });
    const result = await runEval({
      dir: cases,
      out: mkdtempSync(join(tmpdir(), 'failure-case-eval-')),
      temporal: { client: h.t.client, connection: h.t.nativeConnection, namespace: h.t.namespace },
      workflowBundle: { codePath: inject('workflowBundlePath') },
      concurrency: 1,
    });
    const [run] = result.runs;
    expect(run?.observation.status).toBe('failed');
    expect(run?.observation.terminalReason?.code).toBe('completion.not_satisfied');
    expect(run?.observation.invocations.find((i) => i.tool === 'refund.verify')?.status).toBe(
      'failed_terminal',
    );
    expect(run?.checks.failures).toEqual([]);
  }, 240_000);

  it('budget-exhausted and guardrail-blocked runs yield samples; a succeeded run yields none; no sample holds a secret', async () => {
    const budget = await h.start({
      task: { message: 'refund ORD-1001', customerId: 'C1001' },
      budget: { maxSteps: 2 },
    });
    const blocked = await h.start({
      task: { message: `refund ORD-1001, my api key is ${PASTED_KEY}`, customerId: 'C1001' },
    });
    const ok = await h.start({ task: { message: 'refund ORD-2001 please', customerId: 'C1001' } });
    await Promise.all([ended(budget), ended(blocked), ended(ok)]);
    expect((await ok.query<RunView>('state')).status).toBe('succeeded');
    expect(await store.getFailureSample(ok.workflowId)).toBeUndefined();
    expect(await store.getFailureSample(budget.workflowId)).toMatchObject({
      reason: 'budget_exhausted',
      status: 'budget_exhausted',
      code: 'budget.max_steps',
    });
    expect(await store.getFailureSample(blocked.workflowId)).toMatchObject({
      reason: 'guardrail_blocked',
      code: 'guardrail.input_blocked',
    });
    const none = await cli('failures', 'export', ok.workflowId, '--out', join(h.dir, 'none'));
    expect(none.code).toBe(3);
    const badReason = await cli('failures', 'list', '--reason', 'crashed');
    expect(badReason.code).toBe(2);
    const guardList = await cli('failures', 'list', '--reason', 'guardrail_blocked', '--json');
    expect(guardList.stdout).toContain(blocked.workflowId);
    expect(guardList.stdout).not.toContain(budget.workflowId);

    for (const handle of [budget, blocked]) {
      const dir = join(h.dir, 'samples', handle.workflowId);
      const exported = await cli('failures', 'export', handle.workflowId, '--out', dir);
      expect(exported.code, exported.stderr).toBe(0);
      const sampleText = readFileSync(join(dir, 'sample.json'), 'utf8');
      const historyText = readFileSync(join(dir, 'history.json'), 'utf8');
      // The worker's credential reaches neither file; the pasted key is scrubbed from the sample.
      expect(sampleText).not.toContain(WORKER_KEY);
      expect(historyText).not.toContain(WORKER_KEY);
      expect(sampleText).not.toContain(PASTED_KEY);
      const replayed = await cli('--json', 'replay', dir);
      expect(replayed.code, replayed.stderr).toBe(0);
      expect(JSON.parse(replayed.stdout)).toMatchObject({ ok: true });
    }
    const { sample } = readFailureSampleFolder(join(h.dir, 'samples', blocked.workflowId));
    expect(JSON.stringify(sample.inputs.start)).toContain('[redacted:secret]');
  }, 240_000);

  it('harness metrics reports every seed metric over the runs of a window, replaying their failure samples', async () => {
    // The store holds the four runs of the tests above: failed, budget-exhausted, guardrail-blocked, succeeded.
    const r = await cli('--json', 'metrics', '--since', '1h', '--replay');
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as MetricsReport;
    const by = Object.fromEntries(report.metrics.map((m) => [m.id, m.result]));
    expect(report.runs).toBe(4);
    expect(report.sources).toEqual({ history: true, replay: true });
    expect(report.metrics.map((m) => m.id)).toEqual(SEED_METRICS.map(([id]) => id));
    // Each of the three failures replays to the same end against this build.
    expect(by.failure_reproduction_rate).toEqual({ value: 1, numerator: 3, denominator: 3 });
    expect(by.version_attribution_coverage).toEqual({ value: 1, numerator: 4, denominator: 4 });
    expect(by.state_transition_integrity).toEqual({ value: 1, numerator: 4, denominator: 4 });
    expect(by.trace_completeness).toEqual({ value: 1, numerator: 4, denominator: 4 });
    expect(by.run_success_rate).toMatchObject({ numerator: 1, denominator: 4 });
    expect((by.queue_wait_time as { samples: number }).samples).toBeGreaterThan(10);
    expect(by.instruction_data_separation_pass_rate).toMatchObject({ value: 1 });
    expect((by.context_required_fact_recall as { denominator: number }).denominator).toBeGreaterThan(0);
    expect(by.task_success_rate).toMatchObject({ value: null });
    expect((by.task_success_rate as { reason: string }).reason).toContain('evaluation');

    // Markdown by default; store only with --no-history (queue wait then says why).
    const md = await cli('metrics', '--since', '1h', '--no-history');
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain(
      '| reliability | Queue wait time | not computable: skipped with --no-history |',
    );
    expect(md.stdout).toContain('| evidence | Failure reproduction rate | not computable: ');
    // A window with no run measures nothing; bad options change nothing and exit 2.
    const empty = await cli(
      '--json',
      'metrics',
      '--since',
      '2020-01-01T00:00:00Z',
      '--until',
      '2020-01-02T00:00:00Z',
      '--no-history',
    );
    expect((JSON.parse(empty.stdout) as MetricsReport).runs).toBe(0);
    for (const bad of [
      ['metrics', '--since', 'yesterday'],
      ['metrics', '--since', '1h', '--until', '2h'],
      ['metrics', '--replay', '--no-history'],
      ['metrics', '--limit', '9000'],
    ])
      expect((await cli(...bad)).code).toBe(2);
  }, 240_000);
});
