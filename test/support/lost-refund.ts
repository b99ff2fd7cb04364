import { createHarnessFixture, type HarnessFixture } from './harness.js';

/**
 * A harness fixture whose `refund.create` has no reconciler (`HARNESS_REFUND_RECONCILE=off`) and
 * whose connection breaks after every refund committed: the executor throws an unexpected error
 * after the business row exists, so the write's outcome is unknown and only a person can settle it.
 * The fixture's worker runs in this process, so the wrapped store is the one the tool uses.
 */
export async function createLostRefundFixture(name: string): Promise<HarnessFixture> {
  const h = await createHarnessFixture(name, { env: { HARNESS_REFUND_RECONCILE: 'off' } });
  const store = h.composition.refundStore;
  const create = store.createRefund.bind(store);
  store.createRefund = async (...args) => {
    await create(...args);
    throw new Error('connection reset after commit');
  };
  return h;
}
