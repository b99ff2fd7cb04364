import { defaultSeedData, SEED_CUSTOMER_ID } from './business/seed-data.js';
import type { RefundStore } from './business/refund-store.js';

/**
 * Add a fresh order to the business store for a demo run: paid 100 hours ago, not shipped, belonging
 * to the seed customer. Each call creates a new order id, so the demo can be run again and again on
 * the same store without tripping the "already refunded" checks.
 */
export function seedDemoOrder(
  store: RefundStore,
  now: Date = store.now(),
): { orderId: string; customerId: string } {
  const base = defaultSeedData(now);
  const orderId = `ORD-DEMO-${now.getTime().toString(36).toUpperCase()}`;
  const paidAt = new Date(now.getTime() - 100 * 3_600_000).toISOString();
  store.seed({
    orders: [
      {
        id: orderId,
        customerId: SEED_CUSTOMER_ID,
        status: 'paid',
        amountCents: 12_900,
        currency: 'CNY',
        paidAt,
        phone: '13800001001',
      },
    ],
    logistics: [{ orderId, status: 'not_shipped', updatedAt: paidAt }],
    policies: base.policies,
  });
  return { orderId, customerId: SEED_CUSTOMER_ID };
}
