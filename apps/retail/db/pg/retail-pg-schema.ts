/**
 * DDL of the retail database in a PostgreSQL schema: the tables, columns and constraints of
 * `RETAIL_SCHEMA_SQL` (retail-schema.ts) translated (REAL -> DOUBLE PRECISION, an IEEE double as in
 * SQLite; INTEGER stays INTEGER so `pg` returns numbers). Every `pos` column keeps the benchmark's
 * iteration order exactly as in SQLite (the rows a tool call reads are copied with their positions).
 * The `UNIQUE (…, pos)` constraints are deferred to the commit, so a write-back may update rows in
 * any order. Run with `search_path` set to the retail schema; idempotent (`IF NOT EXISTS`).
 */
export const RETAIL_PG_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS products (
  product_id  TEXT PRIMARY KEY,
  pos         INTEGER NOT NULL,
  name        TEXT NOT NULL,
  UNIQUE (pos) DEFERRABLE INITIALLY DEFERRED
);

CREATE TABLE IF NOT EXISTS variants (
  product_id    TEXT NOT NULL REFERENCES products (product_id),
  item_id       TEXT NOT NULL,
  pos           INTEGER NOT NULL,
  options_json  TEXT NOT NULL,
  available     INTEGER NOT NULL CHECK (available IN (0, 1)),
  price         DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (product_id, item_id),
  UNIQUE (product_id, pos) DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX IF NOT EXISTS variants_by_item ON variants (item_id);

CREATE TABLE IF NOT EXISTS users (
  user_id       TEXT PRIMARY KEY,
  pos           INTEGER NOT NULL,
  first_name    TEXT NOT NULL,
  last_name     TEXT NOT NULL,
  address1      TEXT NOT NULL,
  address2      TEXT NOT NULL,
  city          TEXT NOT NULL,
  country       TEXT NOT NULL,
  state         TEXT NOT NULL,
  zip           TEXT NOT NULL,
  email         TEXT NOT NULL,
  email_folded  TEXT NOT NULL,
  orders_json   TEXT NOT NULL,
  UNIQUE (pos) DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX IF NOT EXISTS users_by_zip ON users (zip);
CREATE INDEX IF NOT EXISTS users_by_email ON users (email_folded);

CREATE TABLE IF NOT EXISTS payment_methods (
  user_id    TEXT NOT NULL REFERENCES users (user_id),
  id         TEXT NOT NULL,
  pos        INTEGER NOT NULL,
  source     TEXT NOT NULL CHECK (source IN ('credit_card', 'gift_card', 'paypal')),
  brand      TEXT,
  last_four  TEXT,
  balance    DOUBLE PRECISION,
  PRIMARY KEY (user_id, id),
  UNIQUE (user_id, pos) DEFERRABLE INITIALLY DEFERRED,
  CHECK ((source = 'gift_card') = (balance IS NOT NULL)),
  CHECK ((source = 'credit_card') = (brand IS NOT NULL AND last_four IS NOT NULL))
);

CREATE TABLE IF NOT EXISTS orders (
  order_id                    TEXT PRIMARY KEY,
  pos                         INTEGER NOT NULL,
  user_id                     TEXT NOT NULL,
  address1                    TEXT NOT NULL,
  address2                    TEXT NOT NULL,
  city                        TEXT NOT NULL,
  country                     TEXT NOT NULL,
  state                       TEXT NOT NULL,
  zip                         TEXT NOT NULL,
  status                      TEXT NOT NULL CHECK (status IN ('processed', 'pending',
                                'pending (item modified)', 'delivered', 'cancelled',
                                'exchange requested', 'return requested')),
  cancel_reason               TEXT,
  exchange_items_json         TEXT,
  exchange_new_items_json     TEXT,
  exchange_payment_method_id  TEXT,
  exchange_price_difference   DOUBLE PRECISION,
  return_items_json           TEXT,
  return_payment_method_id    TEXT,
  UNIQUE (pos) DEFERRABLE INITIALLY DEFERRED
);

CREATE TABLE IF NOT EXISTS order_items (
  order_id      TEXT NOT NULL REFERENCES orders (order_id),
  pos           INTEGER NOT NULL,
  name          TEXT NOT NULL,
  product_id    TEXT NOT NULL,
  item_id       TEXT NOT NULL,
  price         DOUBLE PRECISION NOT NULL,
  options_json  TEXT NOT NULL,
  PRIMARY KEY (order_id, pos)
);

CREATE TABLE IF NOT EXISTS fulfillments (
  order_id           TEXT NOT NULL REFERENCES orders (order_id),
  pos                INTEGER NOT NULL,
  tracking_ids_json  TEXT NOT NULL,
  item_ids_json      TEXT NOT NULL,
  PRIMARY KEY (order_id, pos)
);

CREATE TABLE IF NOT EXISTS payment_history (
  order_id           TEXT NOT NULL REFERENCES orders (order_id),
  pos                INTEGER NOT NULL,
  transaction_type   TEXT NOT NULL CHECK (transaction_type IN ('payment', 'refund')),
  amount             DOUBLE PRECISION NOT NULL,
  payment_method_id  TEXT NOT NULL,
  PRIMARY KEY (order_id, pos)
);

CREATE TABLE IF NOT EXISTS applied_writes (
  idempotency_key  TEXT PRIMARY KEY,
  tool             TEXT NOT NULL,
  args_digest      TEXT NOT NULL,
  outcome          TEXT NOT NULL CHECK (outcome IN ('succeeded', 'failed')),
  output_json      TEXT,
  error_json       TEXT,
  CHECK ((outcome = 'succeeded') = (output_json IS NOT NULL AND error_json IS NULL)),
  CHECK ((outcome = 'failed') = (error_json IS NOT NULL AND output_json IS NULL))
);
`;

/** A retail table: its name, columns (in the SQLite schema's order) and primary-key columns. */
export interface RetailTableSpec {
  readonly name: string;
  readonly columns: readonly string[];
  readonly key: readonly string[];
}

const c = (name: string, key: readonly string[], columns: string): RetailTableSpec => ({
  name,
  key,
  columns: columns.split(/\s+/).filter((s) => s !== ''),
});

/**
 * Every retail table in foreign-key order (a parent before its children): inserts run in this order,
 * deletes in the reverse. The columns are those of both DDLs (a unit test compares them with SQLite's).
 */
export const RETAIL_TABLES: readonly RetailTableSpec[] = [
  c('products', ['product_id'], 'product_id pos name'),
  c('variants', ['product_id', 'item_id'], 'product_id item_id pos options_json available price'),
  c(
    'users',
    ['user_id'],
    `user_id pos first_name last_name address1 address2 city country state zip email email_folded orders_json`,
  ),
  c('payment_methods', ['user_id', 'id'], 'user_id id pos source brand last_four balance'),
  c(
    'orders',
    ['order_id'],
    `order_id pos user_id address1 address2 city country state zip status cancel_reason exchange_items_json
     exchange_new_items_json exchange_payment_method_id exchange_price_difference return_items_json
     return_payment_method_id`,
  ),
  c('order_items', ['order_id', 'pos'], 'order_id pos name product_id item_id price options_json'),
  c('fulfillments', ['order_id', 'pos'], 'order_id pos tracking_ids_json item_ids_json'),
  c('payment_history', ['order_id', 'pos'], 'order_id pos transaction_type amount payment_method_id'),
  c('applied_writes', ['idempotency_key'], 'idempotency_key tool args_digest outcome output_json error_json'),
];
