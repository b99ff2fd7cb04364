import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { isHarnessError } from '../../contract/errors.js';
import { requireOptional } from '../optional-package.js';
import { StoreError } from './errors.js';
import type { SqlOp, SqlProgram, SqlExecutor } from './sql.js';

/** Default time a writer waits for another connection's write lock before `store.unavailable`. */
export const SQLITE_DEFAULT_BUSY_TIMEOUT_MS = 10_000;

/**
 * Runs programs on one better-sqlite3 connection. Durability: WAL journal with `synchronous=FULL`, so
 * a committed transaction is on disk when the call resolves. Several processes may share the file:
 * writes take the lock up front (`BEGIN IMMEDIATE`) and wait up to the busy timeout for it. A
 * program runs synchronously from `BEGIN` to `COMMIT`, so nothing else on the event loop can
 * interleave with an open transaction; the wait for another process's lock blocks the event loop for
 * at most the busy timeout.
 */
export class SqliteExecutor implements SqlExecutor {
  readonly dialect = 'sqlite';
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private closed = false;

  /**
   * @throws `package.missing` (MissingPackageError) when the optional package `better-sqlite3` is not
   *   installed; `store.backend_error` when the file cannot be opened.
   */
  constructor(path: string, busyTimeoutMs: number = SQLITE_DEFAULT_BUSY_TIMEOUT_MS) {
    const Sqlite = requireOptional<typeof Database>('better-sqlite3');
    try {
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
      this.db = new Sqlite(path, { timeout: busyTimeoutMs });
      if (path !== ':memory:') this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = FULL');
      this.db.pragma('foreign_keys = ON');
      // Deleted content is overwritten with zeros (erased values leave the file: docs/evidence-store.md).
      this.db.pragma('secure_delete = ON');
    } catch (err) {
      throw mapSqliteError(err);
    }
  }

  transaction<T>(program: () => SqlProgram<T>): Promise<T> {
    return this.guard(() => this.db.transaction(() => this.drive(program())).immediate());
  }

  snapshot<T>(program: () => SqlProgram<T>): Promise<T> {
    return this.guard(() => this.db.transaction(() => this.drive(program())).deferred());
  }

  /** Checkpoint the WAL and truncate it, so erased bytes leave it (best effort: readers may hold it). */
  compact(): Promise<void> {
    return this.guard(() => {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    });
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.db.close();
    }
    return Promise.resolve();
  }

  private guard<T>(run: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new StoreError('store.closed', 'the evidence store is closed'));
    try {
      return Promise.resolve(run());
    } catch (err) {
      return Promise.reject(mapSqliteError(err));
    }
  }

  private drive<T>(program: SqlProgram<T>): T {
    let step = program.next();
    while (step.done !== true) {
      step = program.next(this.execute(step.value));
    }
    return step.value;
  }

  private execute(op: SqlOp): unknown {
    let statement = this.statements.get(op.sql);
    if (statement === undefined) {
      statement = this.db.prepare(op.sql);
      this.statements.set(op.sql, statement);
    }
    return op.kind === 'rows' ? statement.all(...op.params) : statement.run(...op.params).changes;
  }
}

function mapSqliteError(err: unknown): Error {
  if (isHarnessError(err)) return err;
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  if (
    code === 'SQLITE_BUSY' ||
    code === 'SQLITE_LOCKED' ||
    (typeof code === 'string' && code.startsWith('SQLITE_BUSY'))
  ) {
    return new StoreError('store.unavailable', `SQLite is busy: ${message}`, { code }, { cause: err });
  }
  return new StoreError(
    'store.backend_error',
    `SQLite failed: ${message}`,
    { code: typeof code === 'string' ? code : null },
    { cause: err },
  );
}
