import type pg from 'pg';
import { isHarnessError } from '../../contract/errors.js';
import { requireOptional } from '../optional-package.js';
import { StoreError } from './errors.js';
import type { SqlProgram, SqlExecutor, SqlValue } from './sql.js';

export interface PostgresExecutorOptions {
  /** `postgres://` or `postgresql://` connection string, without the harness's own parameters. */
  readonly connectionString: string;
  /** Schema holding the tables (`search_path`); default: the server's default. */
  readonly schema?: string;
  /** Largest number of pooled connections. */
  readonly poolSize?: number;
  /** How long to wait for a new connection before `store.unavailable` (ms). Default 10 000. */
  readonly connectTimeoutMs?: number;
}

/**
 * Runs programs on a `pg` pool: each program on one client between `BEGIN` and `COMMIT` (READ
 * COMMITTED; idempotent inserts use `ON CONFLICT DO NOTHING`, which waits for a concurrent insert of
 * the same key and then sees it). A resolved call is committed. Snapshots run `REPEATABLE READ READ
 * ONLY`. Connection loss, shutdown, serialisation failures and deadlocks map to `store.unavailable`.
 * A connection lost while a program holds it (a server restart, a failover, a terminated backend) fails
 * that program (rolled back by the server) and the client is discarded; it never escapes as an
 * unhandled `error` event, which would end the process.
 */
export class PostgresExecutor implements SqlExecutor {
  readonly dialect = 'postgres';
  private readonly pool: pg.Pool;
  private readonly converted = new Map<string, string>();
  private closed = false;

  /** @throws `package.missing` (MissingPackageError) when the optional package `pg` is not installed. */
  constructor(opts: PostgresExecutorOptions) {
    this.pool = new (requireOptional<typeof pg>('pg').Pool)({
      connectionString: opts.connectionString,
      max: opts.poolSize ?? 10,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
      ...(opts.schema === undefined ? {} : { options: `-c search_path=${opts.schema}` }),
    });
    // An idle client that loses its server emits here; the next query reports the failure.
    this.pool.on('error', () => undefined);
  }

  transaction<T>(program: () => SqlProgram<T>): Promise<T> {
    return this.inTransaction('BEGIN', program);
  }

  snapshot<T>(program: () => SqlProgram<T>): Promise<T> {
    return this.inTransaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', program);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private async inTransaction<T>(begin: string, program: () => SqlProgram<T>): Promise<T> {
    if (this.closed) throw new StoreError('store.closed', 'the evidence store is closed');
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw mapPostgresError(err);
    }
    let broken = false;
    // pg-pool listens for a client's errors only while it is idle: a checked-out client whose
    // connection ends emits `error` with no listener, an uncaught exception. Its query fails as well.
    const lost = (): void => {
      broken = true;
    };
    client.on('error', lost);
    try {
      await client.query(begin);
      const value = await this.drive(client, program());
      await client.query('COMMIT');
      return value;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      throw mapPostgresError(err);
    } finally {
      client.off('error', lost);
      client.release(broken);
    }
  }

  private async drive<T>(client: pg.PoolClient, program: SqlProgram<T>): Promise<T> {
    let step = program.next();
    while (step.done !== true) {
      const op = step.value;
      const result = await client.query(this.convert(op.sql), op.params as SqlValue[]);
      step = program.next(op.kind === 'rows' ? result.rows : (result.rowCount ?? 0));
    }
    return step.value;
  }

  /** `?` placeholders to `$n` (store SQL never contains a literal `?`). */
  private convert(sql: string): string {
    let text = this.converted.get(sql);
    if (text === undefined) {
      let n = 0;
      text = sql.replace(/\?/g, () => `$${++n}`);
      this.converted.set(sql, text);
    }
    return text;
  }
}

const RETRYABLE_SQLSTATE_PREFIXES = ['08', '53', '57P', '40001', '40P01'];
const RETRYABLE_NODE_CODES = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'];

function mapPostgresError(err: unknown): Error {
  if (isHarnessError(err)) return err;
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  const text = typeof code === 'string' ? code : null;
  const retryable =
    (text !== null &&
      (RETRYABLE_SQLSTATE_PREFIXES.some((p) => text.startsWith(p)) || RETRYABLE_NODE_CODES.includes(text))) ||
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      message,
    );
  return new StoreError(
    retryable ? 'store.unavailable' : 'store.backend_error',
    `PostgreSQL ${retryable ? 'is unavailable' : 'failed'}: ${message}`,
    { code: text },
    { cause: err },
  );
}
