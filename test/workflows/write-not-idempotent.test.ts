import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRefundStore } from '../../apps/refund/business/refund-store.js';
import { WRITE_RETRY_IDEMPOTENCY_PATCH } from '../../src/workflows/temporal/run-patches.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { decide } from '../support/decisions.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { historyOf } from '../support/history.js';

/** refund.create is the 4th invocation of the refund graph. */
const CREATE_SEQ = 4;

/**
 * A write not declared `idempotentByKey` is never attempted again on the reconciler's word alone:
 * refund.create (drill: declared without `idempotentByKey`) loses its first attempt (the connection
 * breaks before the row is written, so the reconciler finds nothing and says `not_applied`). The run
 * asks a person (`write_not_idempotent`) instead of retrying; the person's `not_applied` runs it again
 * under the same idempotency key, and exactly one refund exists.
 */
describe('a non-idempotent write settled not_applied waits for a person', { timeout: 120_000 }, () => {
  let h: HarnessFixture;
  let creates = 0;
  beforeAll(async () => {
    h = await createHarnessFixture('write-not-idempotent', { drills: { idempotentByKey: false } });
    const store = h.composition.refundStore;
    const create = store.createRefund.bind(store);
    store.createRefund = async (...args) => {
      creates += 1;
      // The first attempt's connection breaks before anything is written: an unknown outcome.
      if (creates === 1) throw new Error('connection reset before commit');
      return create(...args);
    };
  });
  afterAll(async () => {
    await h?.close();
  });

  it('asks before another attempt; the person’s not_applied runs it again under the same key', async () => {
    const handle = await h.start({
      task: { message: 'refund ORD-1001 please, it has not shipped', customerId: 'C1001' },
    });
    const confirm = await waitForState(handle, (v) => v.status === 'awaiting_confirmation', 60_000);
    await decide(handle, 'approve', {}, confirm);
    const waiting = await waitForState(handle, (v) => v.waitingReason === 'write_not_idempotent', 60_000);
    expect(waiting.status).toBe('awaiting_human');
    expect(waiting.pendingAction).toMatchObject({ kind: 'reconcile', invocationSeq: CREATE_SEQ });
    expect(waiting.humanRequest).toMatchObject({
      decisionType: 'write_not_idempotent',
      riskReasons: ['write_not_idempotent'],
    });
    expect(waiting.invocations.find((i) => i.seq === CREATE_SEQ)?.status).toBe('outcome_unknown');
    // One attempt only so far: the reconciler's not_applied did not run the write again.
    const before = await h.composition.store.getInvocation(handle.workflowId, CREATE_SEQ);
    expect(before?.intents.map((i) => i.attempt)).toEqual([1]);
    expect(creates).toBe(1);

    await decide(
      handle,
      'reconcile',
      { invocationSeq: CREATE_SEQ, outcome: 'not_applied', evidence: { checked: 'refunds table' } },
      waiting,
    );
    const result = (await handle.result()) as { status: string; output: { outcome: string } };
    expect(result.status).toBe('succeeded');
    expect(result.output.outcome).toBe('refunded');
    const view = await handle.query<RunView>('state');
    expect(view.invocations.find((i) => i.seq === CREATE_SEQ)?.status).toBe('succeeded');
    const record = await h.composition.store.getInvocation(handle.workflowId, CREATE_SEQ);
    expect(record?.intents.map((i) => i.attempt)).toEqual([1, 2]);
    expect(new Set(record?.intents.map((i) => i.idempotencyKey))).toEqual(
      new Set([`${handle.workflowId}/${CREATE_SEQ}`]),
    );

    const events = await h.composition.store.listEvents(handle.workflowId);
    const decided = events
      .filter((e) => e.type === 'recovery.decided')
      .map((e) => [e.data.decision, e.data.reason]);
    expect(decided).toEqual([
      ['reconcile', 'tool.outcome_unknown'],
      ['await_human', 'write.not_idempotent'],
      ['retry_attempt', expect.stringMatching(/^not_applied:operator:/)],
    ]);
    // Step contracts: the attempt tried again is recorded failed_retryable before its retry_attempt.
    expect(events.filter((e) => e.type === 'tool.attempt_failed').map((e) => e.data)).toEqual([
      {
        seq: CREATE_SEQ,
        tool: 'refund.create',
        attempt: 1,
        status: 'failed_retryable',
        reason: expect.stringMatching(/^not_applied:operator:/) as string,
      },
    ]);
    // The new behaviour is behind its own patch, recorded on this path.
    const markers = (await historyOf(handle)).filter((e) => e.patchId === WRITE_RETRY_IDEMPOTENCY_PATCH);
    expect(markers).toHaveLength(1);
    // Exactly one refund under the call's key.
    const store = openRefundStore(h.composition.refundStore.path);
    try {
      const refund = await store.findRefundByKey(`${handle.workflowId}/${CREATE_SEQ}`);
      expect(refund).toMatchObject({ orderId: 'ORD-1001' });
    } finally {
      store.close();
    }
  });
});
