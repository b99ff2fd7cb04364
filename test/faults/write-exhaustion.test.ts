import { recordFixtureIfAsked } from '../support/record-fixture.js';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { MAX_WRITE_ATTEMPTS } from '../../src/workflows/runner/write-recovery.js';
import { TEST_APPROVER, decide } from '../support/decisions.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { refundRowsIn, waitForPause, type RefundRow } from './fault-rig.js';

/** refund.create is the 4th invocation of the refund graph. */
const CREATE_SEQ = 4;

/** The refunds made under the run's refund.create key. */
function refundRows(h: HarnessFixture, handle: WorkflowHandle): RefundRow[] {
  return refundRowsIn(h.dir, `${handle.workflowId}/${CREATE_SEQ}`);
}

/**
 * Effectively once when the infrastructure keeps failing (seed 004): the evidence store (real
 * PostgreSQL) is stopped right after the refund was approved, so every attempt of `refund.create`
 * fails before its executor runs (`tool.not_started`). After the last automatic attempt the run does
 * not refuse the refund: it waits for a person (`write_attempts_exhausted`). The store comes back,
 * the person says `not_applied`, and one more attempt pays the refund, once.
 */
describe('faults: an approved write whose attempts all fail goes to a person', { timeout: 360_000 }, () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c().catch(() => undefined);
  });

  it('PostgreSQL down for every attempt: the run waits for a person, whose not_applied pays the refund once', async () => {
    const pg: TestPostgres = await startTestPostgres();
    cleanup.push(() => pg.stop());
    const h = await createHarnessFixture('write-exhaustion', { storeUrl: pg.freshUrl() });
    cleanup.push(() => h.close());
    const handle = await h.start({
      task: { message: 'refund ORD-1001 please, it has not shipped', customerId: 'C1001' },
    });
    // A settled pause: the events flushed before it are stored. Halting PostgreSQL earlier would hang
    // that flush, and the run would never take the approval (what this test is not about).
    const approval = await waitForPause(handle, 'awaiting_confirmation');
    await pg.halt();
    let down = true;
    cleanup.push(async () => {
      if (down) await pg.resume();
    });
    await decide(handle, 'approve', {}, approval);

    // Five attempts, 2 + 4 + 8 + 16 s apart, none started: a person is asked, nothing was refused.
    const waiting = await waitForState(
      handle,
      (v) => v.waitingReason === 'write_attempts_exhausted' || v.status === 'succeeded',
      200_000,
    );
    expect(waiting).toMatchObject({
      status: 'awaiting_human',
      waitingReason: 'write_attempts_exhausted',
      pendingAction: { kind: 'reconcile', invocationSeq: CREATE_SEQ, tool: 'refund.create' },
      humanRequest: { decisionType: 'write_attempts_exhausted' },
    });
    expect(waiting.humanRequest?.requestSummary).toContain(`${MAX_WRITE_ATTEMPTS} attempts`);
    expect(refundRows(h, handle)).toHaveLength(0);

    await pg.resume();
    down = false;
    await decide(handle, 'reconcile', { invocationSeq: CREATE_SEQ, outcome: 'not_applied' }, waiting);
    const result = (await handle.result()) as { status: string; output: Record<string, unknown> };

    const rows = refundRows(h, handle);
    expect(rows).toHaveLength(1);
    expect(result.status).toBe('succeeded');
    expect(result.output).toMatchObject({ outcome: 'refunded', refundId: rows[0]!.id });
    const view = await handle.query<RunView>('state');
    expect(view.invocations.find((i) => i.seq === CREATE_SEQ)).toMatchObject({
      tool: 'refund.create',
      status: 'succeeded',
    });
    // Only the attempt after the person's answer reached the store; it is attempt 6.
    const record = await h.composition.store.getInvocation(handle.workflowId, CREATE_SEQ);
    expect(record?.intents.map((i) => i.attempt)).toEqual([MAX_WRITE_ATTEMPTS + 1]);
    expect(record?.result).toMatchObject({ status: 'succeeded', attempt: MAX_WRITE_ATTEMPTS + 1 });
    const events = await h.composition.store.listEvents(handle.workflowId);
    const decisions = events
      .filter((e) => e.type === 'recovery.decided')
      .map((e) => {
        const d = e.data as { decision: string; reason: string; attempt: number };
        return `${d.attempt} ${d.decision} ${d.reason}`;
      });
    expect(decisions).toEqual([
      '2 retry_attempt tool.not_started',
      '3 retry_attempt tool.not_started',
      '4 retry_attempt tool.not_started',
      '5 retry_attempt tool.not_started',
      '5 await_human tool.attempts_exhausted',
      `6 retry_attempt not_applied:operator:${TEST_APPROVER}`,
    ]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'refund-graph-baseline3-write-exhaustion-v1');
  });
});
