/** Version written to `PRAGMA user_version` once the schema below exists. */
export const REFUND_SCHEMA_VERSION = 1;

/** DDL of the refund example's business store. Idempotent: every statement is `IF NOT EXISTS`. */
export const REFUND_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS orders (
  id            TEXT PRIMARY KEY,
  customer_id   TEXT NOT NULL,
  status        TEXT NOT NULL CHECK (status IN ('paid', 'shipped', 'delivered', 'cancelled')),
  amount_cents  INTEGER NOT NULL CHECK (amount_cents > 0),
  currency      TEXT NOT NULL,
  paid_at       TEXT NOT NULL,
  phone         TEXT NOT NULL,
  version       INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1)
);

CREATE TABLE IF NOT EXISTS logistics (
  order_id    TEXT PRIMARY KEY REFERENCES orders (id) ON DELETE CASCADE,
  status      TEXT NOT NULL CHECK (status IN ('not_shipped', 'in_transit', 'delivered', 'returned')),
  updated_at  TEXT NOT NULL,
  version     INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1)
);

CREATE TABLE IF NOT EXISTS refunds (
  id               TEXT PRIMARY KEY,
  order_id         TEXT NOT NULL REFERENCES orders (id),
  amount_cents     INTEGER NOT NULL CHECK (amount_cents > 0),
  currency         TEXT NOT NULL,
  reason           TEXT NOT NULL,
  idempotency_key  TEXT NOT NULL UNIQUE,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  created_at       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS refunds_by_order ON refunds (order_id);

CREATE TABLE IF NOT EXISTS refund_policies (
  id                  TEXT NOT NULL CHECK (id GLOB 'R[0-9][0-9][0-9]'),
  version             INTEGER NOT NULL CHECK (version >= 1),
  title               TEXT NOT NULL,
  text                TEXT NOT NULL,
  rule                TEXT NOT NULL,
  order_statuses      TEXT NOT NULL,
  logistics_statuses  TEXT NOT NULL,
  effective_from      TEXT NOT NULL,
  effective_to        TEXT,
  PRIMARY KEY (id, version)
);
`;
