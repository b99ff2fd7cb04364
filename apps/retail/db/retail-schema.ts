/** Version written to `PRAGMA user_version` once {@link RETAIL_SCHEMA_SQL} exists. */
export const RETAIL_SCHEMA_VERSION = 1;

/**
 * DDL of the retail database. Every list and map of `db.json` keeps its order in a `pos` column
 * (the benchmark iterates its dicts in insertion order: the first user matching a name and zip, the
 * first product holding an item id). Option maps and id lists that no tool edits element-wise are
 * JSON text, which keeps their key order. Money is REAL (an IEEE double, as in the benchmark).
 *
 * `applied_writes` holds one row per idempotency key a write tool has seen, written in the same
 * transaction as the effect: the recorded output (`succeeded`) or the business error (`failed`: `{ message, pythonType }`).
 */
export const RETAIL_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS products (
  product_id  TEXT PRIMARY KEY,
  pos         INTEGER NOT NULL UNIQUE,
  name        TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS variants (
  product_id    TEXT NOT NULL REFERENCES products (product_id),
  item_id       TEXT NOT NULL,
  pos           INTEGER NOT NULL,
  options_json  TEXT NOT NULL,
  available     INTEGER NOT NULL CHECK (available IN (0, 1)),
  price         REAL NOT NULL,
  PRIMARY KEY (product_id, item_id),
  UNIQUE (product_id, pos)
);
CREATE INDEX IF NOT EXISTS variants_by_item ON variants (item_id);

CREATE TABLE IF NOT EXISTS users (
  user_id       TEXT PRIMARY KEY,
  pos           INTEGER NOT NULL UNIQUE,
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
  orders_json   TEXT NOT NULL
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
  balance    REAL,
  PRIMARY KEY (user_id, id),
  UNIQUE (user_id, pos),
  CHECK ((source = 'gift_card') = (balance IS NOT NULL)),
  CHECK ((source = 'credit_card') = (brand IS NOT NULL AND last_four IS NOT NULL))
);

CREATE TABLE IF NOT EXISTS orders (
  order_id                    TEXT PRIMARY KEY,
  pos                         INTEGER NOT NULL UNIQUE,
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
  exchange_price_difference   REAL,
  return_items_json           TEXT,
  return_payment_method_id    TEXT
);

CREATE TABLE IF NOT EXISTS order_items (
  order_id      TEXT NOT NULL REFERENCES orders (order_id),
  pos           INTEGER NOT NULL,
  name          TEXT NOT NULL,
  product_id    TEXT NOT NULL,
  item_id       TEXT NOT NULL,
  price         REAL NOT NULL,
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
  amount             REAL NOT NULL,
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
