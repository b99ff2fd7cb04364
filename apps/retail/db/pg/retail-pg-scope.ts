import { RETAIL_TOOLS as T } from '../../workflow/retail-tool-names.js';
import type { PgQueryable, RetailRow, RetailRows } from './retail-pg-rows.js';

/**
 * The rows one tool call may read or change, derived from its arguments before it runs: an order
 * (with its items, fulfillments and payments, and its user), a user (with their payment methods),
 * the users of a zip or of an email, the whole catalogue (products are small and never written),
 * and, for a write, its idempotency key's `applied_writes` row.
 */
export interface RetailCallScope {
  readonly orderId?: string;
  readonly userId?: string;
  readonly zip?: string;
  readonly foldedEmail?: string;
  readonly products: boolean;
  /** A write's idempotency key: locked (advisory) and its record loaded. */
  readonly writeKey?: string;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The scope of a call of `tool` with `args` (unvalidated: a missing or mistyped id just loads
 * nothing, and the executor then rejects the arguments or raises the benchmark's not-found error,
 * exactly as over SQLite). Writes always load the catalogue (the item tools read variants).
 */
export function scopeOfCall(
  tool: string,
  args: Readonly<Record<string, unknown>>,
  writeKey: string | undefined,
): RetailCallScope {
  const orderId = text(args.order_id);
  const userId = text(args.user_id);
  const base = {
    ...(orderId === undefined ? {} : { orderId }),
    ...(userId === undefined ? {} : { userId }),
  };
  if (writeKey !== undefined) return { ...base, products: true, writeKey };
  switch (tool) {
    case T.findUserIdByNameZip: {
      const zip = text(args.zip);
      return { products: false, ...(zip === undefined ? {} : { zip }) };
    }
    case T.findUserIdByEmail: {
      const email = text(args.email);
      // The same folding as findUserIdByEmail (retail-reads.ts) and the loader's email_folded column.
      return { products: false, ...(email === undefined ? {} : { foldedEmail: email.toLowerCase() }) };
    }
    case T.getProductDetails:
    case T.getItemDetails:
    case T.listAllProductTypes:
      return { products: true };
    default:
      return { ...base, products: false };
  }
}

async function rows(client: PgQueryable, sql: string, values: readonly unknown[] = []): Promise<RetailRow[]> {
  return (await client.query(sql, values)).rows;
}

/**
 * Read the rows of `scope` from PostgreSQL inside the caller's transaction. With `lock` (a write):
 * first an advisory transaction lock on the key (a concurrent call under the same key waits and then
 * sees the first one's record), then `FOR UPDATE` on the order row and on the user row (the order's
 * user, and the `user_id` argument), always in that order, so two writes touching one order or one
 * user (its gift-card balances) run one after the other and the second reads what the first
 * committed (no lost update); the other rows are read after the locks are held (READ COMMITTED: each
 * statement sees every commit before it).
 *
 * @throws the driver's error unchanged (the caller rolls back).
 */
export async function loadScope(
  client: PgQueryable,
  scope: RetailCallScope,
  lock: boolean,
): Promise<RetailRows> {
  const out: RetailRows = new Map();
  const forUpdate = lock ? ' FOR UPDATE' : '';
  if (scope.writeKey !== undefined) {
    if (lock) await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [scope.writeKey]);
    out.set(
      'applied_writes',
      await rows(client, 'SELECT * FROM applied_writes WHERE idempotency_key = $1', [scope.writeKey]),
    );
  }
  const userIds = new Set<string>();
  if (scope.orderId !== undefined) {
    const order = await rows(client, `SELECT * FROM orders WHERE order_id = $1${forUpdate}`, [scope.orderId]);
    out.set('orders', order);
    for (const o of order) userIds.add(o.user_id as string);
    for (const child of ['order_items', 'fulfillments', 'payment_history']) {
      out.set(child, await rows(client, `SELECT * FROM ${child} WHERE order_id = $1`, [scope.orderId]));
    }
  }
  if (scope.userId !== undefined) userIds.add(scope.userId);
  const users =
    userIds.size === 0
      ? []
      : await rows(client, `SELECT * FROM users WHERE user_id = ANY($1) ORDER BY user_id${forUpdate}`, [
          [...userIds],
        ]);
  if (scope.zip !== undefined)
    users.push(...(await rows(client, 'SELECT * FROM users WHERE zip = $1', [scope.zip])));
  if (scope.foldedEmail !== undefined) {
    users.push(...(await rows(client, 'SELECT * FROM users WHERE email_folded = $1', [scope.foldedEmail])));
  }
  const unique = [...new Map(users.map((u) => [u.user_id as string, u])).values()];
  out.set('users', unique);
  if (unique.length > 0) {
    const ids = unique.map((u) => u.user_id);
    out.set(
      'payment_methods',
      await rows(client, 'SELECT * FROM payment_methods WHERE user_id = ANY($1)', [ids]),
    );
  }
  if (scope.products) {
    out.set('products', await rows(client, 'SELECT * FROM products'));
    out.set('variants', await rows(client, 'SELECT * FROM variants'));
  }
  return out;
}
