import type { DeliveredOutcome } from '../../../src/workflows/index.js';
import type { RefundGraphState } from './refund-state.js';

/**
 * The refund graph's answer when a budget (its deadline, while a person settled the refund's write)
 * ended the run after `refund.create` took effect: the refund is recorded, but the run did not verify
 * it, so the answer says so and makes no "refunded" claim. `null` (the runner's summary) when the
 * applied write is not a refund.
 */
export function refundDeliveredAnswer(outcome: DeliveredOutcome): unknown {
  const refund = outcome.writes.find((w) => w.tool === 'refund.create');
  if (refund === undefined) return null;
  const s = (outcome.resume?.state ?? {}) as Partial<RefundGraphState>;
  const orderId = s.orderId ?? null;
  const amount =
    s.decision && s.order ? ` of ${(s.decision.amountCents / 100).toFixed(2)} ${s.order.currency}` : '';
  const ref = refund.externalId !== undefined ? ` (reference ${refund.externalId})` : '';
  const message =
    `Your refund request${amount} for order ${orderId ?? '(unknown)'} was recorded${ref}. ` +
    'It has not been verified yet: the time for this request ran out before the check.';
  return { outcome: 'refund_recorded_unverified', message, refundId: refund.externalId ?? null, orderId };
}
