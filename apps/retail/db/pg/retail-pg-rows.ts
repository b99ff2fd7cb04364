import type { RetailDb } from '../retail-db.js';
import { RETAIL_TABLES } from './retail-pg-schema.js';
import type { RetailTableSpec } from './retail-pg-schema.js';

/** A column value as both drivers give it: text, a number (INTEGER or a double), or null. */
export type RetailCell = string | number | null;
/** One table row, by column name. */
export type RetailRow = Record<string, RetailCell>;
/** Rows by table name (a table absent or empty holds no rows). */
export type RetailRows = Map<string, RetailRow[]>;

/** What a PostgreSQL client needs to offer here (a `pg` client or pool client). */
export interface PgQueryable {
  query(text: string, values?: readonly unknown[]): Promise<{ rows: RetailRow[] }>;
}

/** The largest number of rows one multi-row INSERT sends (PostgreSQL allows 65 535 parameters). */
const INSERT_CHUNK = 500;

function placeholders(count: number, from: number): string {
  return Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ');
}

/**
 * Insert `rows` into the PostgreSQL table `spec`, in chunks.
 *
 * @throws the driver's error (a constraint, a lost connection) unchanged; the caller's transaction
 *   then rolls back.
 */
export async function insertPgRows(client: PgQueryable, spec: RetailTableSpec, rows: readonly RetailRow[]) {
  const cols = spec.columns;
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    const chunk = rows.slice(start, start + INSERT_CHUNK);
    const values: RetailCell[] = [];
    const tuples = chunk.map((row, i) => {
      for (const col of cols) values.push(row[col] ?? null);
      return `(${placeholders(cols.length, i * cols.length + 1)})`;
    });
    await client.query(`INSERT INTO ${spec.name} (${cols.join(', ')}) VALUES ${tuples.join(', ')}`, values);
  }
}

/**
 * Insert rows (read from PostgreSQL) into a local SQLite retail database, parents first.
 *
 * @throws SQLite errors (a constraint) unchanged.
 */
export function insertLocalRows(db: RetailDb, rows: RetailRows): void {
  db.transaction(() => {
    for (const spec of RETAIL_TABLES) {
      const list = rows.get(spec.name) ?? [];
      if (list.length === 0) continue;
      const insert = db.sqlite.prepare(
        `INSERT INTO ${spec.name} (${spec.columns.join(', ')}) VALUES (${spec.columns.map(() => '?').join(', ')})`,
      );
      for (const row of list) insert.run(...spec.columns.map((col) => row[col] ?? null));
    }
  });
}

/** Every row of every table of a local SQLite retail database. */
export function localRows(db: RetailDb): RetailRows {
  const rows: RetailRows = new Map();
  for (const spec of RETAIL_TABLES) {
    rows.set(
      spec.name,
      db.sqlite.prepare(`SELECT ${spec.columns.join(', ')} FROM ${spec.name}`).all() as RetailRow[],
    );
  }
  return rows;
}

function keyOf(spec: RetailTableSpec, row: RetailRow): string {
  return JSON.stringify(spec.key.map((k) => row[k]));
}

/** The row changes of one table, between what was loaded and what the local copy holds now. */
export interface RetailTableDiff {
  readonly spec: RetailTableSpec;
  readonly deleted: readonly RetailRow[];
  readonly updated: readonly RetailRow[];
  readonly inserted: readonly RetailRow[];
}

/**
 * The changes from `before` to `after`, per table, rows matched by primary key; a row counts as
 * updated when any column differs (`===`: both drivers give the same numbers and strings).
 */
export function diffRows(before: RetailRows, after: RetailRows): RetailTableDiff[] {
  const diffs: RetailTableDiff[] = [];
  for (const spec of RETAIL_TABLES) {
    const old = new Map((before.get(spec.name) ?? []).map((r) => [keyOf(spec, r), r]));
    const updated: RetailRow[] = [];
    const inserted: RetailRow[] = [];
    for (const row of after.get(spec.name) ?? []) {
      const key = keyOf(spec, row);
      const was = old.get(key);
      old.delete(key);
      if (was === undefined) inserted.push(row);
      else if (spec.columns.some((col) => (was[col] ?? null) !== (row[col] ?? null))) updated.push(row);
    }
    const deleted = [...old.values()];
    if (deleted.length + updated.length + inserted.length > 0)
      diffs.push({ spec, deleted, updated, inserted });
  }
  return diffs;
}

/**
 * Apply `diffs` to PostgreSQL: deletes (children first), then updates, then inserts (parents first),
 * inside the caller's transaction.
 *
 * @throws the driver's error unchanged (the caller rolls back).
 */
export async function writeBack(client: PgQueryable, diffs: readonly RetailTableDiff[]): Promise<void> {
  for (const { spec, deleted } of [...diffs].reverse()) {
    const where = spec.key.map((k, i) => `${k} = $${i + 1}`).join(' AND ');
    for (const row of deleted) {
      await client.query(
        `DELETE FROM ${spec.name} WHERE ${where}`,
        spec.key.map((k) => row[k]),
      );
    }
  }
  for (const { spec, updated } of diffs) {
    const set = spec.columns.filter((col) => !spec.key.includes(col));
    const sql = `UPDATE ${spec.name} SET ${set.map((col, i) => `${col} = $${i + 1}`).join(', ')} WHERE ${spec.key
      .map((k, i) => `${k} = $${set.length + i + 1}`)
      .join(' AND ')}`;
    for (const row of updated) {
      await client.query(sql, [...set.map((col) => row[col] ?? null), ...spec.key.map((k) => row[k])]);
    }
  }
  for (const { spec, inserted } of diffs) await insertPgRows(client, spec, inserted);
}
