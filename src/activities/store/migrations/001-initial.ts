import type { Migration } from './migration.js';

/**
 * The first schema. Portable SQL (SQLite and PostgreSQL): JSON is stored as canonical text in `body`
 * columns so that idempotency checks compare exact strings on both backends; key and query columns
 * beside it. Timestamps are ISO-8601 text.
 */
export const migration001Initial: Migration = {
  version: 1,
  name: 'initial',
  statements: [
    `CREATE TABLE invocation_intents (
      run_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      attempt INTEGER NOT NULL,
      tool TEXT NOT NULL,
      tool_version TEXT NOT NULL,
      effect TEXT NOT NULL,
      idempotency_key TEXT NOT NULL,
      body TEXT NOT NULL,
      recorded_at TEXT NOT NULL,
      PRIMARY KEY (run_id, seq, attempt)
    )`,
    `CREATE TABLE invocation_results (
      run_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      attempt INTEGER NOT NULL,
      status TEXT NOT NULL,
      source TEXT NOT NULL,
      body TEXT NOT NULL,
      recorded_at TEXT NOT NULL,
      PRIMARY KEY (run_id, seq, attempt),
      FOREIGN KEY (run_id, seq, attempt) REFERENCES invocation_intents (run_id, seq, attempt)
    )`,
    `CREATE TABLE artifacts (
      id TEXT NOT NULL PRIMARY KEY,
      run_id TEXT NOT NULL,
      seq INTEGER,
      attempt INTEGER,
      type TEXT NOT NULL,
      provenance TEXT NOT NULL,
      digest TEXT NOT NULL,
      body TEXT NOT NULL,
      recorded_at TEXT NOT NULL
    )`,
    'CREATE INDEX artifacts_by_run ON artifacts (run_id, seq)',
    `CREATE TABLE message_groups (
      run_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      body TEXT NOT NULL,
      PRIMARY KEY (run_id, seq)
    )`,
    `CREATE TABLE events (
      run_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      event_id TEXT NOT NULL UNIQUE,
      type TEXT NOT NULL,
      occurred_at TEXT NOT NULL,
      body TEXT NOT NULL,
      PRIMARY KEY (run_id, seq)
    )`,
    `CREATE TABLE model_deltas (
      run_id TEXT NOT NULL,
      call_id TEXT NOT NULL,
      idx INTEGER NOT NULL,
      type TEXT NOT NULL,
      body TEXT NOT NULL,
      PRIMARY KEY (run_id, call_id, idx)
    )`,
    `CREATE TABLE blobs (
      digest TEXT NOT NULL PRIMARY KEY,
      size INTEGER NOT NULL,
      body TEXT NOT NULL
    )`,
  ],
};
