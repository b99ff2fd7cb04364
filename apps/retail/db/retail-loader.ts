import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { RetailError, RetailErrorCode } from '../domain/retail-errors.js';
import { insertOrderChildren } from './retail-db.js';
import type { RetailDb } from './retail-db.js';
import { RETAIL_CANCEL_REASONS, RETAIL_ORDER_STATUSES } from './retail-types.js';
import type { RetailDbJson } from './retail-types.js';

const AddressSchema = z.strictObject({
  address1: z.string(),
  address2: z.string(),
  city: z.string(),
  country: z.string(),
  state: z.string(),
  zip: z.string(),
});
const OptionsSchema = z.record(z.string(), z.string());
const VariantSchema = z.strictObject({
  item_id: z.string(),
  options: OptionsSchema,
  available: z.boolean(),
  price: z.number(),
});
const ProductSchema = z.strictObject({
  name: z.string(),
  product_id: z.string(),
  variants: z.record(z.string(), VariantSchema),
});
const PaymentMethodSchema = z.discriminatedUnion('source', [
  z.strictObject({
    source: z.literal('credit_card'),
    id: z.string(),
    brand: z.string(),
    last_four: z.string(),
  }),
  z.strictObject({ source: z.literal('gift_card'), id: z.string(), balance: z.number() }),
  z.strictObject({ source: z.literal('paypal'), id: z.string() }),
]);
const UserSchema = z.strictObject({
  user_id: z.string(),
  name: z.strictObject({ first_name: z.string(), last_name: z.string() }),
  address: AddressSchema,
  email: z.string(),
  payment_methods: z.record(z.string(), PaymentMethodSchema),
  orders: z.array(z.string()),
});
const OrderSchema = z.strictObject({
  order_id: z.string(),
  user_id: z.string(),
  address: AddressSchema,
  items: z.array(
    z.strictObject({
      name: z.string(),
      product_id: z.string(),
      item_id: z.string(),
      price: z.number(),
      options: OptionsSchema,
    }),
  ),
  status: z.enum(RETAIL_ORDER_STATUSES),
  fulfillments: z.array(z.strictObject({ tracking_id: z.array(z.string()), item_ids: z.array(z.string()) })),
  payment_history: z.array(
    z.strictObject({
      transaction_type: z.enum(['payment', 'refund']),
      amount: z.number(),
      payment_method_id: z.string(),
    }),
  ),
  cancel_reason: z.enum(RETAIL_CANCEL_REASONS).optional(),
  exchange_items: z.array(z.string()).optional(),
  exchange_new_items: z.array(z.string()).optional(),
  exchange_payment_method_id: z.string().optional(),
  exchange_price_difference: z.number().optional(),
  return_items: z.array(z.string()).optional(),
  return_payment_method_id: z.string().optional(),
});

/** The shape of τ²-bench's retail `db.json` (built on first use). */
export const RetailDbJsonSchema = z.lazy(() =>
  z.strictObject({
    products: z.record(z.string(), ProductSchema),
    users: z.record(z.string(), UserSchema),
    orders: z.record(z.string(), OrderSchema),
  }),
);

/** Every map key must equal the id inside its value (the tables are keyed by the ids). */
function checkKeys(db: RetailDbJson): void {
  const mismatch = (where: string, key: string, id: string) => {
    if (key !== id) {
      throw new RetailError(RetailErrorCode.dbInvalid, `${where} key ${key} differs from its id ${id}`, {
        where,
        key,
        id,
      });
    }
  };
  for (const [k, p] of Object.entries(db.products)) {
    mismatch('products', k, p.product_id);
    for (const [vk, v] of Object.entries(p.variants)) mismatch(`products.${k}.variants`, vk, v.item_id);
  }
  for (const [k, u] of Object.entries(db.users)) {
    mismatch('users', k, u.user_id);
    for (const [mk, m] of Object.entries(u.payment_methods)) mismatch(`users.${k}.payment_methods`, mk, m.id);
  }
  for (const [k, o] of Object.entries(db.orders)) mismatch('orders', k, o.order_id);
}

/**
 * Check a parsed `db.json` value against the benchmark's shape.
 *
 * @throws RetailError `retail.db_invalid` naming the first issues, or a key that differs from its id.
 */
export function parseRetailDbJson(value: unknown): RetailDbJson {
  const parsed = RetailDbJsonSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new RetailError(RetailErrorCode.dbInvalid, `not a retail db.json: ${issues.join('; ')}`, {
      issues,
    });
  }
  const db = parsed.data as RetailDbJson;
  checkKeys(db);
  return db;
}

function insertAll(sqlite: Database.Database, db: RetailDbJson): void {
  const product = sqlite.prepare('INSERT INTO products (product_id, pos, name) VALUES (?, ?, ?)');
  const variant = sqlite.prepare(
    'INSERT INTO variants (product_id, item_id, pos, options_json, available, price) VALUES (?, ?, ?, ?, ?, ?)',
  );
  Object.values(db.products).forEach((p, pos) => {
    product.run(p.product_id, pos, p.name);
    Object.values(p.variants).forEach((v, vpos) =>
      variant.run(p.product_id, v.item_id, vpos, JSON.stringify(v.options), v.available ? 1 : 0, v.price),
    );
  });
  const user = sqlite.prepare(
    `INSERT INTO users (user_id, pos, first_name, last_name, address1, address2, city, country, state, zip,
       email, email_folded, orders_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const method = sqlite.prepare(
    'INSERT INTO payment_methods (user_id, id, pos, source, brand, last_four, balance) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  Object.values(db.users).forEach((u, pos) => {
    const a = u.address;
    user.run(
      u.user_id,
      pos,
      u.name.first_name,
      u.name.last_name,
      a.address1,
      a.address2,
      a.city,
      a.country,
      a.state,
      a.zip,
      u.email,
      u.email.toLowerCase(),
      JSON.stringify(u.orders),
    );
    Object.values(u.payment_methods).forEach((m, mpos) =>
      method.run(
        u.user_id,
        m.id,
        mpos,
        m.source,
        m.source === 'credit_card' ? m.brand : null,
        m.source === 'credit_card' ? m.last_four : null,
        m.source === 'gift_card' ? m.balance : null,
      ),
    );
  });
  const order = sqlite.prepare(
    `INSERT INTO orders (order_id, pos, user_id, address1, address2, city, country, state, zip, status)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const optional = sqlite.prepare(
    `UPDATE orders SET cancel_reason = ?, exchange_items_json = ?, exchange_new_items_json = ?,
       exchange_payment_method_id = ?, exchange_price_difference = ?, return_items_json = ?,
       return_payment_method_id = ? WHERE order_id = ?`,
  );
  const json = (v: readonly string[] | undefined) => (v === undefined ? null : JSON.stringify(v));
  Object.values(db.orders).forEach((o, pos) => {
    const a = o.address;
    order.run(
      o.order_id,
      pos,
      o.user_id,
      a.address1,
      a.address2,
      a.city,
      a.country,
      a.state,
      a.zip,
      o.status,
    );
    optional.run(
      o.cancel_reason ?? null,
      json(o.exchange_items),
      json(o.exchange_new_items),
      o.exchange_payment_method_id ?? null,
      o.exchange_price_difference ?? null,
      json(o.return_items),
      o.return_payment_method_id ?? null,
      o.order_id,
    );
    insertOrderChildren(sqlite, o, false);
  });
}

/**
 * Import a whole `db.json` value into an empty retail database, in one transaction (all or nothing),
 * keeping every map's and list's order.
 *
 * @throws RetailError `retail.db_invalid` for a value that is not a retail db.json, or that breaks a
 *   table constraint (e.g. the database already holds one of its ids); nothing is written then.
 */
export function importRetailDbJson(db: RetailDb, value: unknown): void {
  const data = parseRetailDbJson(value);
  try {
    db.transaction(() => insertAll(db.sqlite, data));
  } catch (err) {
    if (err instanceof Database.SqliteError && err.code.startsWith('SQLITE_CONSTRAINT')) {
      throw new RetailError(RetailErrorCode.dbInvalid, `db.json breaks a constraint: ${err.message}`, {
        sqliteCode: err.code,
      });
    }
    throw err;
  }
}

/**
 * Read and parse a `db.json` file.
 *
 * @throws the file system's error for an unreadable file; `SyntaxError` for text that is not JSON.
 */
export function readRetailDbJsonFile(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}
