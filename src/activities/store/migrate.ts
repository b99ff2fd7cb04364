import { StoreError } from './errors.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations/index.js';
import type { Migration } from './migrations/index.js';
import { exec, rows } from './sql.js';
import type { SqlProgram } from './sql.js';

/** First key of the PostgreSQL advisory lock taken while migrating (the second is the schema's hash). */
export const MIGRATION_LOCK_CLASS = 7_203_411;

export interface MigrateOptions {
  readonly dialect: 'sqlite' | 'postgres';
  /** PostgreSQL schema holding the tables; created when missing. */
  readonly pgSchema?: string;
  /** Migrations to apply; defaults to {@link MIGRATIONS}. */
  readonly migrations?: readonly Migration[];
  readonly now: () => string;
}

/**
 * Bring the schema to the latest version, applying each missing migration once, in order, inside the
 * caller's transaction. Concurrent openers serialise: SQLite through `BEGIN IMMEDIATE` (the executor's
 * write transaction), PostgreSQL through a transaction-scoped advisory lock on the schema.
 * @throws `store.schema_too_new` when the database holds a version this build does not know;
 *   `store.schema_mismatch` when an applied version has another name than this build's.
 * @returns the versions applied now (empty when the schema was current).
 */
export function* migrateProgram(opts: MigrateOptions): SqlProgram<number[]> {
  const migrations = opts.migrations ?? MIGRATIONS;
  const latest = migrations[migrations.length - 1]?.version ?? SCHEMA_VERSION;
  if (opts.dialect === 'postgres') {
    yield* rows('SELECT pg_advisory_xact_lock(?, hashtext(?)) AS locked', [
      MIGRATION_LOCK_CLASS,
      opts.pgSchema ?? 'public',
    ]);
    if (opts.pgSchema !== undefined) yield* exec(`CREATE SCHEMA IF NOT EXISTS "${opts.pgSchema}"`);
  }
  yield* exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  const applied = yield* rows<{ version: number; name: string }>(
    'SELECT version, name FROM schema_migrations ORDER BY version',
  );
  const newest = applied[applied.length - 1]?.version ?? 0;
  if (newest > latest) {
    throw new StoreError(
      'store.schema_too_new',
      `the store's schema version ${newest} is newer than this build's ${latest}; upgrade the harness before using this store`,
      { found: newest, supported: latest },
    );
  }
  const known = new Map(migrations.map((m) => [m.version, m]));
  for (const row of applied) {
    if (known.get(row.version)?.name !== row.name) {
      throw new StoreError(
        'store.schema_mismatch',
        `applied migration ${row.version} '${row.name}' is not this build's`,
        {
          version: row.version,
          name: row.name,
          expected: known.get(row.version)?.name ?? null,
        },
      );
    }
  }
  const done = new Set(applied.map((r) => r.version));
  const now: number[] = [];
  for (const migration of migrations) {
    if (done.has(migration.version)) continue;
    const statements =
      opts.dialect === 'postgres' ? (migration.postgres ?? migration.statements) : migration.statements;
    for (const statement of statements) yield* exec(statement);
    yield* exec('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
      migration.version,
      migration.name,
      opts.now(),
    ]);
    now.push(migration.version);
  }
  return now;
}
