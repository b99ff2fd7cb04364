import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { decide } from '../support/decisions.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { testAttestation } from '../support/attestation.js';
import { runCli, type CliResult } from './cli-support.js';

/**
 * The seal log (docs/evidence-chain.md, "The seal log") as an operator and an auditor use it: seals of
 * two refund runs appended, checkpointed after each, a run's inclusion proven against the later
 * checkpoint with the consistency from the earlier (published) one, and checked against the run's
 * bundle. A log rewritten after its checkpoint was published, a proof for another bundle, an edited
 * path and a key outside the registry are each detected with their reason code.
 */
describe('harness log: append, checkpoint, prove and verify run seals', () => {
  let h: HarnessFixture;
  let env: NodeJS.ProcessEnv;
  const runs: string[] = [];
  const cli = (...args: string[]): Promise<CliResult> => runCli(args, env);
  const file = (name: string) => join(h.dir, name);

  beforeAll(async () => {
    const attestation = testAttestation();
    h = await createHarnessFixture('cli-seal-log', {}, { attestation: attestation.signer });
    writeFileSync(file('keys.json'), JSON.stringify(attestation.registry));
    writeFileSync(
      file('key.json'),
      JSON.stringify({
        keyId: attestation.signer.keyId,
        privateKeyPem: attestation.signer.privateKey.export({ type: 'pkcs8', format: 'pem' }),
      }),
    );
    env = {
      HARNESS_ATTESTATION_KEY: file('key.json'),
      HARNESS_ATTESTATION_KEYS: file('keys.json'),
      HARNESS_TASK_QUEUE: h.taskQueue,
      HARNESS_STORE_URL: `sqlite:${file('evidence.db')}`,
      HARNESS_REFUND_DB: file('refund.db'),
      HARNESS_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    };
    for (let i = 0; i < 2; i++) {
      const handle = await h.start({
        task: { message: 'My order ORD-1001 has not shipped for days, please refund', customerId: 'C1001' },
      });
      const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
      await decide(handle, 'approve', { reason: 'policy R001' }, waiting);
      await handle.result();
      runs.push(handle.workflowId);
    }
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  it('proves a run in the log, consistent with the earlier checkpoint and bound to its bundle', async () => {
    const log = file('seals.jsonl');
    let r = await cli('log', 'append', runs[0]!, 'no-such-run', '--log', log);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('1 seals appended, 1 in the log');
    expect(r.stdout).toContain('not sealed (skipped): no-such-run');
    r = await cli('log', 'checkpoint', '--log', log, '--out', file('cp1.json'));
    expect(r.code, r.stderr).toBe(0);
    r = await cli('log', 'append', runs[0]!, runs[1]!, '--log', log);
    expect(r.stdout).toContain('1 seals appended, 2 in the log');
    r = await cli('log', 'checkpoint', '--log', log, '--out', file('cp2.json'));
    expect(JSON.parse(readFileSync(file('cp2.json'), 'utf8'))).toMatchObject({
      size: 2,
      log: 'harness-seals',
    });

    r = await cli(
      'log',
      'prove',
      runs[0]!,
      '--log',
      log,
      '--checkpoint',
      file('cp2.json'),
      '--since',
      file('cp1.json'),
      '--out',
      file('p0.json'),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('is entry 0 of 2 seals');
    for (const [i, run] of runs.entries()) {
      r = await cli('export', run, '--bundle', file(`b${i}.json`));
      expect(r.code, r.stderr).toBe(0);
    }
    r = await cli('log', 'verify', file('p0.json'), '--bundle', file('b0.json'));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^PASS {2}log\.ok .*extends the earlier checkpoint/);

    // The proof is for run 0's seal, not run 1's.
    r = await cli('log', 'verify', file('p0.json'), '--bundle', file('b1.json'));
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('log.seal_mismatch');

    // An edited audit path leads elsewhere.
    const proof = JSON.parse(readFileSync(file('p0.json'), 'utf8')) as { path: string[] };
    proof.path[0] = proof.path[0]!.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    writeFileSync(file('p0-edited.json'), JSON.stringify(proof));
    r = await cli('log', 'verify', file('p0-edited.json'));
    expect(r.stdout).toContain('log.not_included');

    // Checked with another attestation registry: the checkpoint's key is unknown.
    writeFileSync(file('other-keys.json'), JSON.stringify(testAttestation('someone-else').registry));
    r = await cli('log', 'verify', file('p0.json'), '--attestation', file('other-keys.json'));
    expect(r.stdout).toContain('log.unknown_key');
  });

  it('detects a log rewritten after a checkpoint was published (log.inconsistent), and refuses a corrupt log', async () => {
    const log = file('seals.jsonl');
    // The operator rewrites entry 0 (another head for run 0) and signs a new checkpoint.
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    const first = JSON.parse(lines[0]!) as { head: string };
    lines[0] = JSON.stringify({ ...first, head: `sha256:${'f'.repeat(64)}` });
    writeFileSync(file('rewritten.jsonl'), `${lines.join('\n')}\n`);
    let r = await cli('log', 'checkpoint', '--log', file('rewritten.jsonl'), '--out', file('cp3.json'));
    expect(r.code, r.stderr).toBe(0);
    r = await cli(
      'log',
      'prove',
      runs[1]!,
      '--log',
      file('rewritten.jsonl'),
      '--checkpoint',
      file('cp3.json'),
      '--since',
      file('cp1.json'),
      '--out',
      file('p1.json'),
    );
    expect(r.code, r.stderr).toBe(0);
    r = await cli('log', 'verify', file('p1.json'));
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('log.inconsistent');

    writeFileSync(file('corrupt.jsonl'), `${lines[0]}\nnot json\n`);
    r = await cli('log', 'append', runs[1]!, '--log', file('corrupt.jsonl'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('corrupt.jsonl:2 is not entry 1 of a seal log');
    expect(readFileSync(file('corrupt.jsonl'), 'utf8')).toBe(`${lines[0]}\nnot json\n`);
  });
});
