import { RetailError, RetailErrorCode, isToolError } from '../domain/retail-errors.js';
import type { RetailDb } from './retail-db.js';

/** What a write did under one idempotency key: its output, or the benchmark error it raised. */
export type AppliedWrite =
  | { readonly outcome: 'succeeded'; readonly output: Record<string, unknown> }
  | { readonly outcome: 'failed'; readonly message: string; readonly pythonType: string };

/** The call a key was first used for: tool name and the digest of its arguments. */
export interface WriteIdentity {
  readonly tool: string;
  readonly argsDigest: string;
}

interface AppliedRow {
  tool: string;
  args_digest: string;
  outcome: 'succeeded' | 'failed';
  output_json: string | null;
  error_json: string | null;
}

function rowToApplied(row: AppliedRow): AppliedWrite {
  if (row.outcome === 'succeeded') {
    return { outcome: 'succeeded', output: JSON.parse(row.output_json ?? '{}') as Record<string, unknown> };
  }
  const error = JSON.parse(row.error_json ?? '{}') as { message?: string; pythonType?: string };
  return { outcome: 'failed', message: error.message ?? '', pythonType: error.pythonType ?? 'ValueError' };
}

/**
 * What was recorded under `key`, with the call it was recorded for, or `undefined` when the key was
 * never applied. Read-only (the reconciler's look-up).
 *
 * @throws SQLite errors unchanged.
 */
export function recordedWrite(db: RetailDb, key: string): (AppliedWrite & WriteIdentity) | undefined {
  const row = db.sqlite.prepare('SELECT * FROM applied_writes WHERE idempotency_key = ?').get(key) as
    AppliedRow | undefined;
  return row === undefined
    ? undefined
    : { ...rowToApplied(row), tool: row.tool, argsDigest: row.args_digest };
}

/** Result of {@link applyWriteOnce}: what the key holds, and whether this call only read it back. */
export interface WriteOnceResult {
  readonly write: AppliedWrite;
  readonly replayed: boolean;
}

/**
 * Apply a write at most once per idempotency key, atomically with its record. In one `BEGIN
 * IMMEDIATE` transaction: when `key` is recorded, return that record and change nothing; otherwise
 * run `effect` in a savepoint and record its output (`succeeded`), or, when it throws a
 * `retail.tool_error`, roll its writes back and record the error (`failed`), so a repeat gives the
 * same answer even if the data changed meanwhile. Any other throw rolls everything back, records
 * nothing and propagates (a crash before the commit leaves neither effect nor record).
 *
 * @throws RetailError `retail.idempotency_key_reused` when `key` is recorded for another tool or
 *   other arguments (nothing written); SQLite errors and non-business throws of `effect` unchanged.
 */
export function applyWriteOnce(
  db: RetailDb,
  key: string,
  identity: WriteIdentity,
  effect: () => Record<string, unknown>,
): WriteOnceResult {
  return db.transaction(() => {
    const existing = recordedWrite(db, key);
    if (existing !== undefined) {
      if (existing.tool !== identity.tool || existing.argsDigest !== identity.argsDigest) {
        throw new RetailError(
          RetailErrorCode.idempotencyKeyReused,
          `idempotency key ${key} was already used for another call`,
          { key, tool: identity.tool, recordedTool: existing.tool },
        );
      }
      const { tool: _tool, argsDigest: _digest, ...write } = existing;
      return { write, replayed: true };
    }
    let write: AppliedWrite;
    try {
      // Stored and returned as JSON data, so the first answer and every repeat are the same value.
      const output = JSON.parse(JSON.stringify(db.transaction(effect))) as Record<string, unknown>;
      write = { outcome: 'succeeded', output };
    } catch (err) {
      if (!isToolError(err)) throw err;
      const pythonType = typeof err.details.pythonType === 'string' ? err.details.pythonType : 'ValueError';
      write = { outcome: 'failed', message: err.message, pythonType };
    }
    db.sqlite
      .prepare(
        'INSERT INTO applied_writes (idempotency_key, tool, args_digest, outcome, output_json, error_json) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        key,
        identity.tool,
        identity.argsDigest,
        write.outcome,
        write.outcome === 'succeeded' ? JSON.stringify(write.output) : null,
        write.outcome === 'failed'
          ? JSON.stringify({ message: write.message, pythonType: write.pythonType })
          : null,
      );
    return { write, replayed: false };
  });
}
