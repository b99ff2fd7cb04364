import Database from 'better-sqlite3';
import type pg from 'pg';
import { RetailError, RetailErrorCode } from '../../domain/retail-errors.js';
import { RetailDb } from '../retail-db.js';
import { exportRetailDb, retailDbDigest } from '../retail-export.js';
import type { RetailDbJson } from '../retail-types.js';
import { loadPg } from './retail-pg-driver.js';
import { insertLocalRows, insertPgRows, localRows } from './retail-pg-rows.js';
import type { PgQueryable, RetailRows } from './retail-pg-rows.js';
import { RETAIL_PG_SCHEMA_SQL, RETAIL_TABLES } from './retail-pg-schema.js';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Where a retail PostgreSQL database lives: the connection string and the schema of its tables. */
export interface RetailPgLocation {
  readonly connectionString: string;
  readonly schema: string;
}

/**
 * Parse `postgres://…` or `postgresql://…`, with an optional `schema=<name>` query parameter (default
 * `retail`; lower-case letters, digits, `_`), removed from the connection string.
 *
 * @throws RetailError `retail.db_url_invalid` for another scheme, a malformed URL or a bad schema name.
 */
export function parseRetailPgUrl(url: string): RetailPgLocation {
  const fail = (reason: string): never => {
    throw new RetailError(RetailErrorCode.dbUrlInvalid, `invalid retail PostgreSQL URL: ${reason}`, {
      reason,
    });
  };
  if (!/^postgres(ql)?:\/\//i.test(url)) return fail('not a postgres:// URL');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail('malformed URL');
  }
  const schema = parsed.searchParams.get('schema') ?? 'retail';
  if (!SCHEMA_NAME.test(schema)) return fail(`schema must match ${SCHEMA_NAME.source}`);
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), schema };
}

/** An empty local retail database (schema only), in memory. */
export function emptyLocalRetailDb(): RetailDb {
  return new RetailDb(new Database(':memory:'));
}

/** Isolation of a {@link RetailPgStore.transaction}: a write (READ COMMITTED + row locks) or a consistent read. */
export type RetailPgMode = 'write' | 'read';

/**
 * The retail database in one PostgreSQL schema (the tables of retail-pg-schema.ts), over a `pg`
 * pool. It holds the data; the benchmark's logic runs over a local in-memory SQLite copy of the rows
 * one call needs (see retail-pg-executors.ts). PostgreSQL errors (connection loss, a constraint)
 * propagate unchanged; a failed transaction is rolled back.
 */
export class RetailPgStore {
  #closed = false;

  private constructor(
    private readonly pool: pg.Pool,
    readonly schema: string,
  ) {}

  /**
   * Connect to `url` and create the schema and its tables if missing (no data).
   *
   * @throws `package.missing` when the optional package `pg` is not installed; `retail.db_url_invalid`;
   *   the driver's error when the server cannot be reached or refuses the DDL.
   */
  static async open(url: string, options: { readonly poolSize?: number } = {}): Promise<RetailPgStore> {
    const location = parseRetailPgUrl(url);
    const pool = new (loadPg().Pool)({
      connectionString: location.connectionString,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 10_000,
      options: `-c search_path=${location.schema}`,
    });
    pool.on('error', () => undefined);
    const store = new RetailPgStore(pool, location.schema);
    try {
      await pool.query(`CREATE SCHEMA IF NOT EXISTS ${location.schema}`);
      await pool.query(RETAIL_PG_SCHEMA_SQL);
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }

  /**
   * Run `fn` on one pooled client inside one transaction: committed when `fn` resolves, rolled back
   * when it throws (the throw propagates). `read` runs `REPEATABLE READ READ ONLY` (one snapshot);
   * `write` runs READ COMMITTED (the caller takes row locks).
   *
   * @throws `retail.db_invalid` after {@link close}; the driver's errors and `fn`'s throws unchanged.
   */
  async transaction<T>(mode: RetailPgMode, fn: (client: PgQueryable) => Promise<T>): Promise<T> {
    if (this.#closed)
      throw new RetailError(RetailErrorCode.dbInvalid, 'the retail PostgreSQL store is closed');
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query(mode === 'read' ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
      const value = await fn(client);
      await client.query('COMMIT');
      return value;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      throw err;
    } finally {
      client.release(broken);
    }
  }

  /**
   * Replace the whole content (every table, `applied_writes` included) with the rows of `source` (a
   * loaded SQLite retail database, e.g. `RetailDbTemplate.fresh()`), in one transaction.
   *
   * @throws the driver's error unchanged; nothing replaced then.
   */
  async load(source: RetailDb): Promise<void> {
    const rows = localRows(source);
    await this.transaction('write', async (client) => {
      await client.query(`TRUNCATE ${RETAIL_TABLES.map((t) => t.name).join(', ')}`);
      for (const spec of RETAIL_TABLES) await insertPgRows(client, spec, rows.get(spec.name) ?? []);
    });
  }

  /**
   * True when the store holds no product (a new schema, before {@link load}).
   *
   * @throws the driver's error unchanged.
   */
  async isEmpty(): Promise<boolean> {
    return this.transaction(
      'read',
      async (client) => (await client.query('SELECT 1 FROM products LIMIT 1')).rows.length === 0,
    );
  }

  /**
   * The whole database as a local in-memory SQLite copy, read in one snapshot (the caller closes it).
   *
   * @throws the driver's or SQLite's error unchanged.
   */
  async snapshot(): Promise<RetailDb> {
    const rows: RetailRows = await this.transaction('read', async (client) => {
      const all: RetailRows = new Map();
      for (const spec of RETAIL_TABLES) {
        all.set(spec.name, (await client.query(`SELECT * FROM ${spec.name}`)).rows);
      }
      return all;
    });
    const db = emptyLocalRetailDb();
    try {
      insertLocalRows(db, rows);
      return db;
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** The database in `db.json`'s shape, exactly as `exportRetailDb` gives it over SQLite. */
  async export(): Promise<RetailDbJson> {
    const db = await this.snapshot();
    try {
      return exportRetailDb(db);
    } finally {
      db.close();
    }
  }

  /** The same digest as `retailDbDigest` of a SQLite database holding the same data. */
  async digest(): Promise<string> {
    const db = await this.snapshot();
    try {
      return retailDbDigest(db);
    } finally {
      db.close();
    }
  }

  /** Close the pool. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.pool.end();
  }
}
