import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ProofBundle } from '../../src/contract/proof-bundle.js';
import { decide } from '../support/decisions.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { testAttestation } from '../support/attestation.js';
import { installIntoEmptyProject, packHarness } from '../support/packed-install.js';
import { collect, runCli, type CliResult } from './cli-support.js';

/**
 * An auditor with nothing but the package (docs/evidence-chain.md, "What an auditor needs"): a refund
 * run's bundle, exported with `harness export`, verifies with the `harness` of the packed tarball
 * installed alone into an empty directory, with no store, server or app configured; a copy with its
 * seal cut off fails with its reason code.
 */
describe('harness verify --bundle from the packed tarball', () => {
  let h: HarnessFixture;
  let dir = '';
  let project = '';
  let runId = '';
  const attestation = testAttestation();

  /** The installed package's `harness` in `project`, with none of the harness's environment. */
  const auditor = (...args: string[]): Promise<CliResult> => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('HARNESS_') && !k.startsWith('TEMPORAL_')),
    );
    const bin = join(project, 'node_modules', 'agent-harness', 'bin', 'harness.js');
    return collect(spawn(process.execPath, [bin, ...args], { cwd: project, env: clean, stdio: 'pipe' }));
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'harness-proof-packed-'));
    const packed = packHarness(join(dir, 'pack')); // prepack builds dist/ first
    h = await createHarnessFixture('proof-packed', {}, { attestation: attestation.signer });
    const handle = await h.start({
      task: { message: 'My order ORD-1001 has not shipped for days, please refund', customerId: 'C1001' },
    });
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    await decide(handle, 'approve', { reason: 'policy R001' }, waiting);
    expect(((await handle.result()) as { status: string }).status).toBe('succeeded');
    runId = handle.workflowId;

    const keys = join(h.dir, 'attestation.json');
    writeFileSync(keys, JSON.stringify(attestation.registry));
    const exported = await runCli(['export', runId, '--bundle', join(h.dir, 'proof.json')], {
      HARNESS_ATTESTATION_KEYS: keys,
      HARNESS_TASK_QUEUE: h.taskQueue,
      HARNESS_STORE_URL: `sqlite:${join(h.dir, 'evidence.db')}`,
      HARNESS_REFUND_DB: join(h.dir, 'refund.db'),
      HARNESS_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    });
    expect(exported.code, exported.stderr).toBe(0);

    project = join(dir, 'auditor');
    await installIntoEmptyProject(project, await packed, ['agent-harness']);
    writeFileSync(join(project, 'proof.json'), readFileSync(join(h.dir, 'proof.json')));
    writeFileSync(join(project, 'keys.json'), JSON.stringify(attestation.registry));
  }, 900_000);
  afterAll(async () => {
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('verifies the exported bundle: every check passes, the seal among them', async () => {
    const r = await auditor('verify', '--bundle', 'proof.json', '--attestation', 'keys.json');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    for (const code of ['chain.ok', 'heads.ok', 'seal.ok', 'commits.ok', 'decisions.ok', 'history.ok'])
      expect(r.stdout).toContain(code);
    expect(r.stdout.trim().split('\n').at(-1)).toBe(`verified: run ${runId}`);
  });

  it('fails a copy whose seal was cut off the chain, with its reason code', async () => {
    const bundle = JSON.parse(readFileSync(join(project, 'proof.json'), 'utf8')) as ProofBundle;
    expect(bundle.chain.events.at(-1)!.body).toContain('"type":"run.sealed"');
    const cut = { ...bundle, chain: { ...bundle.chain, events: bundle.chain.events.slice(0, -1) } };
    writeFileSync(join(project, 'cut.json'), JSON.stringify(cut));
    const r = await auditor('verify', '--bundle', 'cut.json', '--attestation', 'keys.json');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL +seal +seal\.missing/m);
    expect(r.stdout).toContain('NOT verified');
  });
});
