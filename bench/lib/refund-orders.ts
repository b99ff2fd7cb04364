/**
 * The refund business store as the many-waiting-runs bench uses it (bench/tools/waiting-runs.ts): one
 * fresh order per run, added through the app's own store, and the refund rows counted per order with
 * SQL on the same SQLite file (read-only), the check that each run refunded exactly once.
 */
import Database from 'better-sqlite3';
import { openRefundStore } from '../../apps/refund/business/refund-store.js';

/**
 * Under the seeded auto-approval limit (policy R004): the run waits once, for the approval of its
 * refund (the graph's confirmation node), and creates it. Above the limit the refund call would wait
 * for a second approval at dispatch.
 */
const ORDER_CENTS = 12_900;
const HOUR_MS = 3_600_000;

/** Refund rows per order of `prefix` in the business store (read-only). */
export function refundsPerOrder(refundDb: string, prefix: string): Map<string, number> {
  const db = new Database(refundDb, { readonly: true });
  try {
    const rows = db
      .prepare<[string], { order_id: string; n: number }>(
        'SELECT order_id, COUNT(*) AS n FROM refunds WHERE order_id LIKE ? GROUP BY order_id',
      )
      .all(`${prefix}%`);
    return new Map(rows.map((r) => [r.order_id, r.n]));
  } finally {
    db.close();
  }
}

/** Add the level's orders (paid 100 hours ago, not shipped, 129.00 CNY, customer C1001). */
export function seedOrders(refundDb: string, orderIds: readonly string[]): void {
  const store = openRefundStore(refundDb);
  try {
    const now = Date.now();
    const paidAt = new Date(now - 100 * HOUR_MS).toISOString();
    store.seed({
      orders: orderIds.map((id) => ({
        id,
        customerId: 'C1001',
        status: 'paid' as const,
        amountCents: ORDER_CENTS,
        currency: 'CNY',
        paidAt,
        phone: '13800001001',
      })),
      logistics: orderIds.map((orderId) => ({ orderId, status: 'not_shipped' as const, updatedAt: paidAt })),
      policies: [],
    });
  } finally {
    store.close();
  }
}
