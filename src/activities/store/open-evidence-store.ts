import { StoreError } from './errors.js';
import type { ErasableRule } from '../../contract/erasable-rule.js';
import type { EvidenceStore } from '../../contract/evidence-store.js';
import { migrateProgram } from './migrate.js';
import { PostgresExecutor } from './postgres-executor.js';
import { SqlEvidenceStore } from './sql-evidence-store.js';
import type { SqlExecutor } from './sql.js';
import { SqliteExecutor } from './sqlite-executor.js';

/** Where an evidence store lives, parsed from its URL. */
export type StoreLocation =
  | { readonly backend: 'sqlite'; readonly path: string }
  | { readonly backend: 'postgres'; readonly connectionString: string; readonly schema?: string };

export interface OpenEvidenceStoreOptions {
  /** SQLite: how long a writer waits for another process's write lock (ms). Default 10 000. */
  readonly sqliteBusyTimeoutMs?: number;
  /** PostgreSQL: largest number of pooled connections. Default 10. */
  readonly pgPoolSize?: number;
  /**
   * The app's declared erasable fields (`erasableRule(...)`, contract/erasable-rule.ts), committed in
   * every event this store writes besides the default rule's. Default: the default rule only.
   */
  readonly erasable?: ErasableRule;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Parse a store URL:
 * - `sqlite::memory:` — a private in-memory database (tests);
 * - `sqlite:<path>` or `sqlite://<path>` — a SQLite file (parent folders are created);
 * - a plain path without a scheme — a SQLite file;
 * - `postgres://…` or `postgresql://…` — PostgreSQL; an optional `schema=<name>` query parameter
 *   (lowercase identifier) puts the tables in that schema, created when missing.
 * @throws `store.invalid_url` for anything else.
 */
export function parseStoreUrl(url: string): StoreLocation {
  const fail = (reason: string): never => {
    throw new StoreError('store.invalid_url', `invalid evidence store URL: ${reason}`, { reason });
  };
  if (typeof url !== 'string' || url.trim() === '') return fail('empty');
  if (/^postgres(ql)?:\/\//i.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return fail('malformed PostgreSQL URL');
    }
    if (parsed.hostname === '' && !parsed.searchParams.has('host'))
      return fail('PostgreSQL URL without a host');
    const schema = parsed.searchParams.get('schema') ?? undefined;
    if (schema !== undefined && !SCHEMA_NAME.test(schema))
      return fail(`schema must match ${SCHEMA_NAME.source}`);
    parsed.searchParams.delete('schema');
    return schema === undefined
      ? { backend: 'postgres', connectionString: parsed.toString() }
      : { backend: 'postgres', connectionString: parsed.toString(), schema };
  }
  if (/^sqlite:/i.test(url)) {
    const rest = url.slice('sqlite:'.length);
    const path = rest.startsWith('//') ? rest.slice(2) : rest;
    if (path === '') return fail('sqlite URL without a path');
    return { backend: 'sqlite', path: path === ':memory:' ? ':memory:' : path };
  }
  if (/^[a-z][a-z0-9+.-]+:/i.test(url)) return fail(`unsupported scheme '${url.slice(0, url.indexOf(':'))}'`);
  return { backend: 'sqlite', path: url };
}

/**
 * Open an evidence store and bring its schema to this build's version (migrations run once, safely
 * when several processes open the same store at the same time).
 * @throws `store.invalid_url`; `store.schema_too_new` when the database was written by a newer build
 *   (nothing is changed); `store.schema_mismatch`; `store.unavailable` when the backend cannot be
 *   reached or stays locked; `store.backend_error`.
 */
export async function openEvidenceStore(
  url: string,
  options: OpenEvidenceStoreOptions = {},
): Promise<EvidenceStore> {
  const location = parseStoreUrl(url);
  const executor: SqlExecutor =
    location.backend === 'sqlite'
      ? new SqliteExecutor(location.path, options.sqliteBusyTimeoutMs)
      : new PostgresExecutor({
          connectionString: location.connectionString,
          schema: location.schema,
          poolSize: options.pgPoolSize,
        });
  try {
    await executor.transaction(() =>
      migrateProgram({
        dialect: executor.dialect,
        pgSchema: location.backend === 'postgres' ? location.schema : undefined,
        now: () => new Date().toISOString(),
      }),
    );
  } catch (err) {
    await executor.close();
    throw err;
  }
  return new SqlEvidenceStore(executor, options.erasable);
}
