import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectProofBundle } from '../../src/activities/proof/collect-proof-bundle.js';
import { verifyProofBundle, type ProofReport } from '../../src/client/proof/verify-bundle.js';
import { ProofBundleSchema, type ProofBundle } from '../../src/contract/proof-bundle.js';
import { decide } from '../support/decisions.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { testAttestation } from '../support/attestation.js';

const line = (r: ProofReport, check: string) => r.checks.find((c) => c.check === check)!;

/**
 * A run that continued as new is proven over all its generations (docs/evidence-chain.md, "The
 * bundle"): its bundle holds every generation's history, and a stored result of the first generation
 * that disagrees with the history that recorded it is detected, as one of the last generation is.
 */
describe('proof of a run that continued as new, on the real server', () => {
  let h: HarnessFixture;
  let run: string;
  let bundle: ProofBundle;
  const attestation = testAttestation();

  beforeAll(async () => {
    h = await createHarnessFixture('evidence-generations', {}, { attestation: attestation.signer });
    const handle = await h.start({
      task: { message: 'refund ORD-1001 please', customerId: 'C1001' },
      continueAsNewAfterEvents: 30,
    });
    run = handle.workflowId;
    const current = h.t.client.workflow.getHandle(run);
    const waiting = await waitForState(current, (v) => v.status === 'awaiting_confirmation');
    await decide(current, 'approve', {}, waiting);
    expect(((await current.result()) as { status: string }).status).toBe('succeeded');
    bundle = await collectProofBundle(h.composition.store, h.t.client, run, attestation.registry);
  }, 90_000);
  afterAll(async () => h?.close());

  it('holds every generation history, oldest first, and verifies', async () => {
    const executions: string[] = [];
    for await (const w of h.t.client.workflow.list({ query: `WorkflowId = '${run}'` }))
      executions.push(w.runId);
    expect(executions.length).toBeGreaterThan(1);
    expect(bundle.earlierHistories?.length).toBe(executions.length - 1);
    // The bundle still parses as its format says, with the earlier histories.
    expect(ProofBundleSchema.safeParse(JSON.parse(JSON.stringify(bundle))).success).toBe(true);
    const report = verifyProofBundle(bundle);
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(line(report, 'history').detail).toMatch(/^\d+ tool results/);
  });

  it("detects a first generation's tool result changed in the store (history.result_mismatch)", async () => {
    // The first generation ran tool calls: their results are in its history only.
    expect(JSON.stringify(bundle.earlierHistories![0])).toContain('"runToolV3"');
    const db = new Database(join(h.dir, 'evidence.db'));
    try {
      const row = db
        .prepare('SELECT seq, attempt, body FROM invocation_results WHERE run_id = ? ORDER BY seq LIMIT 1')
        .get(run) as { seq: number; attempt: number; body: string };
      const body = JSON.parse(row.body) as { output?: Record<string, unknown> };
      db.prepare('UPDATE invocation_results SET body = ? WHERE run_id = ? AND seq = ? AND attempt = ?').run(
        JSON.stringify({ ...body, output: { ...body.output, forged: true } }),
        run,
        row.seq,
        row.attempt,
      );
    } finally {
      db.close();
    }
    const tampered = await collectProofBundle(h.composition.store, h.t.client, run, attestation.registry);
    const report = verifyProofBundle(tampered);
    expect(line(report, 'history').code).toBe('history.result_mismatch');
    // Without the earlier generations the latest history alone does not see it.
    const latestOnly = verifyProofBundle({ ...tampered, earlierHistories: undefined });
    expect(line(latestOnly, 'history').ok).toBe(true);
  });
});
