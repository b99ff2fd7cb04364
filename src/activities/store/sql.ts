import { StoreError } from './errors.js';

/** A value bound to a SQL parameter. Both backends store JSON as canonical text. */
export type SqlValue = string | number | null;

/** One statement a program asks its executor to run. SQL uses `?` placeholders. */
export type SqlOp =
  | { readonly kind: 'rows'; readonly sql: string; readonly params: readonly SqlValue[] }
  | { readonly kind: 'exec'; readonly sql: string; readonly params: readonly SqlValue[] };

/**
 * A store operation written once for both backends: a generator that yields statements and receives
 * their results. The SQLite executor drives it synchronously inside one `BEGIN IMMEDIATE` transaction
 * (nothing else can interleave on the connection); the PostgreSQL executor drives it asynchronously on
 * one pooled client between `BEGIN` and `COMMIT`. A program that throws rolls its transaction back.
 */
export type SqlProgram<T> = Generator<SqlOp, T, unknown>;

/** Run a query and receive its rows. */
export function* rows<R>(sql: string, params: readonly SqlValue[] = []): SqlProgram<R[]> {
  return (yield { kind: 'rows', sql, params }) as R[];
}

/** Run a statement and receive the number of rows it changed. */
export function* exec(sql: string, params: readonly SqlValue[] = []): SqlProgram<number> {
  return (yield { kind: 'exec', sql, params }) as number;
}

/** Executes {@link SqlProgram}s against one backend. */
export interface SqlExecutor {
  readonly dialect: 'sqlite' | 'postgres';
  /** Run a program in a write transaction; rejects (rolled back) when the program or the backend fails. */
  transaction<T>(program: () => SqlProgram<T>): Promise<T>;
  /** Run a read-only program on one consistent snapshot. */
  snapshot<T>(program: () => SqlProgram<T>): Promise<T>;
  /** After an erasure: move deleted bytes out of logs the backend can clear itself (SQLite's WAL). */
  compact?(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Insert a row unless its key exists; when it exists, compare the stored identity body with `body`.
 * `columns` must include a `body` column holding `body`.
 * @throws `store.conflict` when a different record holds the key (or another unique column).
 * @returns `inserted` or `identical`.
 */
export function* insertOrCompare(
  table: string,
  columns: Readonly<Record<string, SqlValue>>,
  key: readonly string[],
  what: string,
): SqlProgram<'inserted' | 'identical'> {
  const names = Object.keys(columns);
  const changed = yield* exec(
    `INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')}) ON CONFLICT DO NOTHING`,
    names.map((n) => columns[n] ?? null),
  );
  if (changed === 1) return 'inserted';
  const keyValues = key.map((k) => columns[k] ?? null);
  const existing = yield* rows<{ body: string }>(
    `SELECT body FROM ${table} WHERE ${key.map((k) => `${k} = ?`).join(' AND ')}`,
    keyValues,
  );
  const keyDetails = Object.fromEntries(key.map((k) => [k, columns[k] ?? null]));
  if (existing[0]?.body === columns.body) return 'identical';
  throw new StoreError(
    'store.conflict',
    existing[0] === undefined
      ? `${what} conflicts with another record on a unique column`
      : `${what} already exists with different content; the first record stands`,
    { table, key: keyDetails },
  );
}
