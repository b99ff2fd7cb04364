import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDecision } from '../../src/client/decisions/send-decision.js';
import { waitForPause } from '../faults/fault-rig.js';
import { decide } from '../support/decisions.js';
import { createHarnessFixture, historyEventTypes, type HarnessFixture } from '../support/harness.js';

const REFUSED = 2_000;
const IN_FLIGHT = 8;

/**
 * Refused decisions cost the run nothing: the `decide` update's validator checks the token, its
 * binding and the rules before the update is admitted, so 2,000 refused ones (the server's default
 * limit of updates per execution) leave no history event and the next, valid one is still taken.
 */
describe('2,000 refused decide updates, then an accepted one', { timeout: 300_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('refused-updates');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('each refusal is answered with its reason, none enters the history, the approval then pays once', async () => {
    const handle = await h.start({ task: { message: 'refund ORD-1001 please', customerId: 'C1001' } });
    const waiting = await waitForPause(handle, 'awaiting_confirmation');
    const before = await historyEventTypes(handle);
    const payload = { actionId: waiting.pendingAction!.actionId, actor: 'mallory@example.com' };
    const codes = new Map<string, number>();
    let sent = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (sent < REFUSED) {
          sent += 1;
          const outcome = await sendDecision(handle, 'approve', payload);
          expect(outcome.accepted).toBe(false);
          codes.set(outcome.code, (codes.get(outcome.code) ?? 0) + 1);
        }
      }),
    );
    expect(Object.fromEntries(codes)).toEqual({ 'decision.unsigned': REFUSED });
    const after = await historyEventTypes(handle);
    expect(after.slice(before.length).filter((t) => t.includes('UPDATE'))).toEqual([]);
    expect(after.length - before.length).toBeLessThan(20);

    expect(await decide(handle, 'approve', {}, waiting, { via: 'update' })).toMatchObject({ accepted: true });
    const result = (await handle.result()) as { status: string; output: { outcome: string } };
    expect(result).toMatchObject({ status: 'succeeded', output: { outcome: 'refunded' } });
    expect(await h.composition.refundStore.findRefundByKey(`${handle.workflowId}/4`)).toBeDefined();
  });
});
