import Database from 'better-sqlite3';
import type { BusinessRefund } from './case-observation.js';

/** The rows of the refund business store a case touched (all of them: a case store holds one order). */
export interface BusinessRows {
  readonly orders: readonly Record<string, unknown>[];
  readonly logistics: readonly Record<string, unknown>[];
  readonly refunds: readonly Record<string, unknown>[];
}

/**
 * Read the orders, logistics and refunds of a refund store file through a separate read-only
 * connection (the store's own API has no listing, on purpose).
 * @throws SQLite errors when the file is missing or not a refund store.
 */
export function readBusinessRows(path: string): BusinessRows {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return {
      orders: db.prepare('SELECT * FROM orders ORDER BY id').all() as Record<string, unknown>[],
      logistics: db.prepare('SELECT * FROM logistics ORDER BY order_id').all() as Record<string, unknown>[],
      refunds: db.prepare('SELECT * FROM refunds ORDER BY created_at, id').all() as Record<string, unknown>[],
    };
  } finally {
    db.close();
  }
}

/** Refund rows as the checks read them. */
export function toBusinessRefunds(rows: BusinessRows): BusinessRefund[] {
  return rows.refunds.map((r) => ({
    id: String(r.id),
    orderId: String(r.order_id),
    amountCents: Number(r.amount_cents),
    idempotencyKey: String(r.idempotency_key),
    status: String(r.status),
  }));
}
