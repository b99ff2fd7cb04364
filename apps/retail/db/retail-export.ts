import { sha256Digest } from '../../../src/index.js';
import type { RetailDb } from './retail-db.js';
import { rowToOrder, rowToUser, rowToVariant } from './retail-rows.js';
import type {
  FulfillmentRow,
  OrderItemRow,
  OrderRow,
  PaymentMethodRow,
  PaymentRow,
  UserRow,
  VariantRow,
} from './retail-rows.js';
import type { RetailDbJson, RetailProduct, RetailUser } from './retail-types.js';

/** Rows of `table` ordered by owner and position, grouped by the owner column. */
function grouped<R extends Record<string, unknown>>(
  db: RetailDb,
  table: string,
  owner: string,
): Map<string, R[]> {
  const rows = db.sqlite.prepare(`SELECT * FROM ${table} ORDER BY ${owner}, pos`).all() as R[];
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const key = row[owner] as string;
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

/**
 * The whole database in `db.json`'s shape: products, users and orders in their original order, an
 * order's optional fields only once a tool set them (as in `db.json`). Loading `db.json` and
 * exporting gives back the same JSON data. Two databases hold the same data exactly when their
 * exports are deep-equal, i.e. when their {@link retailDbDigest}s are equal: this is the benchmark's
 * criterion (the final database equals the one the gold actions produce).
 *
 * Note: JavaScript objects list integer-like keys (e.g. item ids below 2^32) first, so the key order
 * of an exported map can differ from the file's; JSON data, and the digest, do not depend on it.
 *
 * @throws SQLite errors unchanged.
 */
export function exportRetailDb(db: RetailDb): RetailDbJson {
  const variants = grouped<VariantRow & Record<string, unknown>>(db, 'variants', 'product_id');
  const products: Record<string, RetailProduct> = {};
  const productRows = db.sqlite.prepare('SELECT product_id, name FROM products ORDER BY pos').all() as {
    product_id: string;
    name: string;
  }[];
  for (const p of productRows) {
    const product: RetailProduct = { name: p.name, product_id: p.product_id, variants: {} };
    for (const v of variants.get(p.product_id) ?? []) product.variants[v.item_id] = rowToVariant(v);
    products[p.product_id] = product;
  }
  const methods = grouped<PaymentMethodRow & Record<string, unknown>>(db, 'payment_methods', 'user_id');
  const users: Record<string, RetailUser> = {};
  for (const u of db.sqlite.prepare('SELECT * FROM users ORDER BY pos').all() as UserRow[]) {
    users[u.user_id] = rowToUser(u, methods.get(u.user_id) ?? []);
  }
  const items = grouped<OrderItemRow & Record<string, unknown>>(db, 'order_items', 'order_id');
  const fulfillments = grouped<FulfillmentRow & Record<string, unknown>>(db, 'fulfillments', 'order_id');
  const payments = grouped<PaymentRow & Record<string, unknown>>(db, 'payment_history', 'order_id');
  const orders: RetailDbJson['orders'] = {};
  for (const o of db.sqlite.prepare('SELECT * FROM orders ORDER BY pos').all() as OrderRow[]) {
    orders[o.order_id] = rowToOrder(o, {
      items: items.get(o.order_id) ?? [],
      fulfillments: fulfillments.get(o.order_id) ?? [],
      payments: payments.get(o.order_id) ?? [],
    });
  }
  return { products, users, orders };
}

/**
 * `sha256:` digest of {@link exportRetailDb}'s canonical JSON (keys sorted): equal exactly when the
 * two databases hold the same data.
 */
export function retailDbDigest(db: RetailDb): string {
  return sha256Digest(exportRetailDb(db));
}
