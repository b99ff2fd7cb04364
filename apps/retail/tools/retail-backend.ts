import type { ToolExecutor } from '../../../src/index.js';
import { openRetailDbFile } from '../db/retail-db.js';
import type { RetailDb } from '../db/retail-db.js';
import { exportRetailDb, retailDbDigest } from '../db/retail-export.js';
import { importRetailDbJson, readRetailDbJsonFile } from '../db/retail-loader.js';
import { RetailDbTemplate } from '../db/retail-template.js';
import type { RetailDbJson } from '../db/retail-types.js';
import { RetailError, RetailErrorCode } from '../domain/retail-errors.js';
import { createRetailExecutors } from './retail-tools.js';

/** The retail database behind the tools, whichever backend holds it. */
export interface RetailBackend {
  readonly kind: 'sqlite' | 'postgres';
  /** The sixteen executors by harness tool name (same outputs and errors on either backend). */
  readonly executors: Readonly<Record<string, ToolExecutor>>;
  /** The database in `db.json`'s shape (`exportRetailDb`). */
  export(): Promise<RetailDbJson>;
  /** `retailDbDigest`: equal across backends exactly when they hold the same data. */
  digest(): Promise<string>;
  close(): Promise<void>;
}

/** Options of {@link openRetailBackend}. */
export interface OpenRetailBackendOptions {
  /** A `db.json` loaded into the database when it is empty (or always, with `reload`). */
  readonly dbJsonPath?: string;
  /** Replace the content with `dbJsonPath` even when the database holds data (a fresh evaluation). */
  readonly reload?: boolean;
}

/** The retail database URL of an environment: `RETAIL_DB_URL`, default an in-memory SQLite database. */
export function retailDbUrl(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const url = env.RETAIL_DB_URL;
  return url === undefined || url.trim() === '' ? 'sqlite::memory:' : url;
}

function sqliteBackend(db: RetailDb): RetailBackend {
  return {
    kind: 'sqlite',
    executors: createRetailExecutors(db),
    export: () => Promise.resolve(exportRetailDb(db)),
    digest: () => Promise.resolve(retailDbDigest(db)),
    close: () => Promise.resolve(db.close()),
  };
}

function reloadable(options: OpenRetailBackendOptions, empty: boolean): string | undefined {
  return options.dbJsonPath !== undefined && (empty || options.reload === true)
    ? options.dbJsonPath
    : undefined;
}

/**
 * Open the retail database named by `url` (see {@link retailDbUrl}) and its executors:
 * - `postgres://…` / `postgresql://…` (optional `?schema=<name>`, default `retail`): a
 *   `RetailPgStore` (needs the optional package `pg`) with `createRetailPgExecutors`;
 * - `sqlite:<path>`, `sqlite::memory:` or a plain path: a SQLite file (WAL) with `createRetailExecutors`.
 * When `options.dbJsonPath` is given and the database is empty (or `reload`), `db.json` is loaded first.
 *
 * @throws `retail.db_url_invalid` for another scheme; `package.missing` for PostgreSQL without `pg`;
 *   `retail.db_invalid` for a bad `db.json` or `reload` of a SQLite file that holds data; file-system, SQLite and PostgreSQL errors unchanged
 *   (nothing is left open then).
 */
export async function openRetailBackend(
  url: string,
  options: OpenRetailBackendOptions = {},
): Promise<RetailBackend> {
  if (/^postgres(ql)?:\/\//i.test(url)) {
    // `pg` itself is loaded by RetailPgStore.open (package.missing when absent).
    const [{ RetailPgStore }, { createRetailPgExecutors }] = await Promise.all([
      import('../db/pg/retail-pg-store.js'),
      import('./retail-pg-executors.js'),
    ]);
    const store = await RetailPgStore.open(url);
    try {
      const path = reloadable(options, await store.isEmpty());
      if (path !== undefined) {
        const local = RetailDbTemplate.fromJsonFile(path).fresh();
        try {
          await store.load(local);
        } finally {
          local.close();
        }
      }
    } catch (err) {
      await store.close();
      throw err;
    }
    return {
      kind: 'postgres',
      executors: createRetailPgExecutors(store),
      export: () => store.export(),
      digest: () => store.digest(),
      close: () => store.close(),
    };
  }
  if (/^[a-z][a-z0-9+.-]+:/i.test(url) && !/^sqlite:/i.test(url)) {
    throw new RetailError(
      RetailErrorCode.dbUrlInvalid,
      `unsupported retail database URL scheme in ${url}`,
      {},
    );
  }
  const rest = url.replace(/^sqlite:(\/\/)?/i, '');
  const db = openRetailDbFile(rest === '' ? ':memory:' : rest);
  try {
    const empty = (db.sqlite.prepare('SELECT COUNT(*) AS n FROM products').get() as { n: number }).n === 0;
    const path = reloadable(options, empty);
    if (path !== undefined) {
      if (!empty)
        throw new RetailError(RetailErrorCode.dbInvalid, 'reload of a non-empty SQLite retail database', {});
      importRetailDbJson(db, readRetailDbJsonFile(path));
    }
  } catch (err) {
    db.close();
    throw err;
  }
  return sqliteBackend(db);
}
