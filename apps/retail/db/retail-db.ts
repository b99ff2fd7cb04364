import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { RETAIL_SCHEMA_SQL, RETAIL_SCHEMA_VERSION } from './retail-schema.js';
import { optionalJson, rowToOrder, rowToPaymentMethod, rowToUser, rowToVariant } from './retail-rows.js';
import type {
  FulfillmentRow,
  OrderItemRow,
  OrderRow,
  PaymentMethodRow,
  PaymentRow,
  UserRow,
  VariantRow,
} from './retail-rows.js';
import type {
  RetailAddress,
  RetailOrder,
  RetailPaymentMethod,
  RetailProduct,
  RetailUser,
  RetailVariant,
} from './retail-types.js';

/** A user's name and id, as `find_user_id_by_name_zip` scans them. */
export interface UserNameRow {
  readonly user_id: string;
  readonly first_name: string;
  readonly last_name: string;
}

/**
 * The retail database over one SQLite connection (a file, or an in-memory copy of a template): typed
 * reads and writes of the benchmark's entities, in the benchmark's iteration order. Synchronous
 * (better-sqlite3). SQLite errors (`SQLITE_BUSY` after the busy timeout, a constraint) propagate
 * unchanged; a missing entity is `undefined`, never an error: the tools raise the benchmark's errors.
 */
export class RetailDb {
  readonly #statements = new Map<string, Database.Statement>();

  constructor(readonly sqlite: Database.Database) {
    sqlite.pragma('foreign_keys = ON');
    sqlite.exec(RETAIL_SCHEMA_SQL);
    sqlite.pragma(`user_version = ${RETAIL_SCHEMA_VERSION}`);
  }

  /** The prepared statement of `sql`, prepared once per connection. */
  #prepare(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.sqlite.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Run `fn` in one transaction: `BEGIN IMMEDIATE` at top level, a savepoint when nested. A throw rolls back. */
  transaction<T>(fn: () => T): T {
    const run = this.sqlite.transaction(fn);
    return this.sqlite.inTransaction ? run() : run.immediate();
  }

  /** The order with this id, in `db.json`'s shape, or `undefined`. */
  order(orderId: string): RetailOrder | undefined {
    const row = this.#prepare('SELECT * FROM orders WHERE order_id = ?').get(orderId) as OrderRow | undefined;
    if (row === undefined) return undefined;
    const byPos = (table: string) =>
      this.#prepare(`SELECT * FROM ${table} WHERE order_id = ? ORDER BY pos`).all(orderId);
    return rowToOrder(row, {
      items: byPos('order_items') as OrderItemRow[],
      fulfillments: byPos('fulfillments') as FulfillmentRow[],
      payments: byPos('payment_history') as PaymentRow[],
    });
  }

  /** The user with this id, payment methods in their order, or `undefined`. */
  user(userId: string): RetailUser | undefined {
    const row = this.#prepare('SELECT * FROM users WHERE user_id = ?').get(userId) as UserRow | undefined;
    if (row === undefined) return undefined;
    const methods = this.#prepare('SELECT * FROM payment_methods WHERE user_id = ? ORDER BY pos').all(
      userId,
    ) as PaymentMethodRow[];
    return rowToUser(row, methods);
  }

  /** One payment method of one user, or `undefined`. */
  paymentMethod(userId: string, paymentMethodId: string): RetailPaymentMethod | undefined {
    const row = this.#prepare('SELECT * FROM payment_methods WHERE user_id = ? AND id = ?').get(
      userId,
      paymentMethodId,
    ) as PaymentMethodRow | undefined;
    return row === undefined ? undefined : rowToPaymentMethod(row);
  }

  /** The product with this id, variants in their order, or `undefined`. */
  product(productId: string): RetailProduct | undefined {
    const row = this.#prepare('SELECT name, product_id FROM products WHERE product_id = ?').get(productId) as
      { name: string; product_id: string } | undefined;
    if (row === undefined) return undefined;
    const variants: Record<string, RetailVariant> = {};
    const rows = this.#prepare('SELECT * FROM variants WHERE product_id = ? ORDER BY pos').all(
      productId,
    ) as VariantRow[];
    for (const v of rows) variants[v.item_id] = rowToVariant(v);
    return { name: row.name, product_id: row.product_id, variants };
  }

  /** A variant of one product, or `undefined`. */
  variant(productId: string, itemId: string): RetailVariant | undefined {
    const row = this.#prepare('SELECT * FROM variants WHERE product_id = ? AND item_id = ?').get(
      productId,
      itemId,
    ) as VariantRow | undefined;
    return row === undefined ? undefined : rowToVariant(row);
  }

  /** The variant with this item id in the first product (in product order) that has it, or `undefined`. */
  firstVariantWithItemId(itemId: string): RetailVariant | undefined {
    const row = this.#prepare(
      `SELECT v.* FROM variants v JOIN products p ON p.product_id = v.product_id
         WHERE v.item_id = ? ORDER BY p.pos LIMIT 1`,
    ).get(itemId) as VariantRow | undefined;
    return row === undefined ? undefined : rowToVariant(row);
  }

  /** Every product's name and id, in product order. */
  productNames(): { name: string; product_id: string }[] {
    return this.#prepare('SELECT name, product_id FROM products ORDER BY pos').all() as {
      name: string;
      product_id: string;
    }[];
  }

  /** Users whose address zip is exactly `zip`, in user order. */
  usersWithZip(zip: string): UserNameRow[] {
    return this.#prepare('SELECT user_id, first_name, last_name FROM users WHERE zip = ? ORDER BY pos').all(
      zip,
    ) as UserNameRow[];
  }

  /** The first user (in user order) whose email, lower-cased by `toLowerCase`, is `foldedEmail`. */
  firstUserWithFoldedEmail(foldedEmail: string): string | undefined {
    const row = this.#prepare('SELECT user_id FROM users WHERE email_folded = ? ORDER BY pos LIMIT 1').get(
      foldedEmail,
    ) as { user_id: string } | undefined;
    return row?.user_id;
  }

  /** Write an order back: its own columns and its items, fulfillments and payments (replaced in order). */
  saveOrder(order: RetailOrder): void {
    const a = order.address;
    this.#prepare(
      `UPDATE orders SET user_id = ?, address1 = ?, address2 = ?, city = ?, country = ?, state = ?, zip = ?,
           status = ?, cancel_reason = ?, exchange_items_json = ?, exchange_new_items_json = ?,
           exchange_payment_method_id = ?, exchange_price_difference = ?, return_items_json = ?,
           return_payment_method_id = ?
         WHERE order_id = ?`,
    ).run(
      order.user_id,
      a.address1,
      a.address2,
      a.city,
      a.country,
      a.state,
      a.zip,
      order.status,
      order.cancel_reason ?? null,
      optionalJson(order.exchange_items),
      optionalJson(order.exchange_new_items),
      order.exchange_payment_method_id ?? null,
      order.exchange_price_difference ?? null,
      optionalJson(order.return_items),
      order.return_payment_method_id ?? null,
      order.order_id,
    );
    insertOrderChildren(this.sqlite, order, true);
  }

  /** Set a gift card's balance. */
  setGiftCardBalance(userId: string, paymentMethodId: string, balance: number): void {
    this.#prepare(
      `UPDATE payment_methods SET balance = ? WHERE user_id = ? AND id = ? AND source = 'gift_card'`,
    ).run(balance, userId, paymentMethodId);
  }

  /** Replace a user's default address. */
  setUserAddress(userId: string, address: RetailAddress): void {
    this.#prepare(
      `UPDATE users SET address1 = ?, address2 = ?, city = ?, country = ?, state = ?, zip = ? WHERE user_id = ?`,
    ).run(
      address.address1,
      address.address2,
      address.city,
      address.country,
      address.state,
      address.zip,
      userId,
    );
  }

  /** The database file's bytes (`sqlite3_serialize`): a template for copies. */
  serialize(): Buffer {
    return this.sqlite.serialize();
  }

  close(): void {
    this.sqlite.close();
  }
}

/**
 * Insert an order's items, fulfillments and payments with their positions; with `replace`, delete the
 * old ones first. Used by the loader and by {@link RetailDb.saveOrder}.
 */
export function insertOrderChildren(sqlite: Database.Database, order: RetailOrder, replace: boolean): void {
  if (replace) {
    for (const table of ['order_items', 'fulfillments', 'payment_history']) {
      sqlite.prepare(`DELETE FROM ${table} WHERE order_id = ?`).run(order.order_id);
    }
  }
  const item = sqlite.prepare(
    'INSERT INTO order_items (order_id, pos, name, product_id, item_id, price, options_json) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  order.items.forEach((it, pos) =>
    item.run(order.order_id, pos, it.name, it.product_id, it.item_id, it.price, JSON.stringify(it.options)),
  );
  const fulfillment = sqlite.prepare(
    'INSERT INTO fulfillments (order_id, pos, tracking_ids_json, item_ids_json) VALUES (?, ?, ?, ?)',
  );
  order.fulfillments.forEach((f, pos) =>
    fulfillment.run(order.order_id, pos, JSON.stringify(f.tracking_id), JSON.stringify(f.item_ids)),
  );
  const payment = sqlite.prepare(
    'INSERT INTO payment_history (order_id, pos, transaction_type, amount, payment_method_id) VALUES (?, ?, ?, ?, ?)',
  );
  order.payment_history.forEach((p, pos) =>
    payment.run(order.order_id, pos, p.transaction_type, p.amount, p.payment_method_id),
  );
}

/** Options of {@link openRetailDbFile}. */
export interface RetailDbFileOptions {
  /** How long a write waits for another process's lock; default 10 s. */
  readonly busyTimeoutMs?: number;
}

/**
 * Open (creating the schema if needed) a retail database file, WAL and a busy timeout, for a worker
 * that several processes share. An empty new file has the schema and no data: write a template's
 * bytes there first ({@link RetailDbTemplate.writeTo}).
 *
 * @throws SQLite errors (unreadable file, not a database) unchanged.
 */
export function openRetailDbFile(path: string, options: RetailDbFileOptions = {}): RetailDb {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path);
  sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  return new RetailDb(sqlite);
}
