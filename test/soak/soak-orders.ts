import { caseSeedData } from '../../apps/refund/business/case-seed.js';
import type { RefundStore } from '../../apps/refund/business/refund-store.js';
import type { RefundSeedData } from '../../apps/refund/business/refund-types.js';
import { SEED_CUSTOMER_ID, SEED_POLICIES } from '../../apps/refund/business/seed-data.js';

/** One order of the soak and what the refund rules say about it. */
export interface SoakOrder {
  readonly orderId: string;
  readonly customerId: string;
  /** Paid 100 hours ago and not shipped (R001: refundable in full after approval). */
  readonly eligible: boolean;
}

/**
 * Seed `count` distinct orders of the seed customer into the business store, in one transaction:
 * every `ineligibleEvery`-th order was paid 10 hours ago (too early for R001: the run refuses it
 * without asking anyone), the others 100 hours ago (eligible). Order ids are `ORD-SOAK-<tag>-<n>`.
 * @throws RefundExampleError `refund.seed_invalid` as {@link RefundStore.seed}.
 */
export function seedSoakOrders(
  store: RefundStore,
  count: number,
  ineligibleEvery: number,
  tag: string,
): SoakOrder[] {
  const now = store.now();
  const orders: SoakOrder[] = [];
  const seeded: RefundSeedData['orders'][number][] = [];
  const logistics: RefundSeedData['logistics'][number][] = [];
  for (let n = 1; n <= count; n++) {
    const eligible = n % ineligibleEvery !== 0;
    const orderId = `ORD-SOAK-${tag}-${String(n).padStart(3, '0')}`;
    const seed = caseSeedData(
      {
        order_status: 'paid',
        hours_since_payment: eligible ? 100 : 10,
        order_id: orderId,
        customer_id: SEED_CUSTOMER_ID,
      },
      now,
    );
    seeded.push(...seed.orders);
    logistics.push(...seed.logistics);
    orders.push({ orderId, customerId: SEED_CUSTOMER_ID, eligible });
  }
  store.seed({ orders: seeded, logistics, policies: SEED_POLICIES });
  return orders;
}
