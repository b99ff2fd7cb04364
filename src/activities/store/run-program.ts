import { decodeJson, encodeJson } from './codec.js';
import { MAX_RECORD_BYTES, type StoredEvent } from '../../contract/store-records.js';
import { failureSampleOf } from '../../contract/failure-sample-record.js';
import { recordFailureSampleProgram } from './failure-sample-program.js';
import { applyEventToRun, type RunRecord } from '../../contract/run-record.js';
import { StoreError } from './errors.js';
import { exec, rows } from './sql.js';
import type { SqlProgram, SqlValue } from './sql.js';

/** Attempts of the optimistic update before giving up (another writer kept moving the same run). */
const MAX_PROJECTION_ATTEMPTS = 5;

export function* getRunProgram(runId: string): SqlProgram<RunRecord | undefined> {
  const found = yield* rows<{ body: string }>('SELECT body FROM runs WHERE run_id = ?', [runId]);
  return found[0] === undefined ? undefined : decodeJson<RunRecord>(found[0].body);
}

/** Runs ordered by last update, newest first; optionally of one status and of one tenant. */
export function* listRunsProgram(
  filter: {
    readonly status?: string;
    readonly tenantId?: string;
    readonly createdFrom?: string;
    readonly createdBefore?: string;
  },
  limit: number,
): SqlProgram<RunRecord[]> {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (filter.status !== undefined) {
    where.push('status = ?');
    params.push(filter.status);
  }
  if (filter.tenantId !== undefined) {
    where.push('tenant_id = ?');
    params.push(filter.tenantId);
  }
  // Creation times are stored as `Date#toISOString()` text (UTC, milliseconds): they sort as text.
  if (filter.createdFrom !== undefined) {
    where.push('created_at >= ?');
    params.push(filter.createdFrom);
  }
  if (filter.createdBefore !== undefined) {
    where.push('created_at < ?');
    params.push(filter.createdBefore);
  }
  const found = yield* rows<{ body: string }>(
    `SELECT body FROM runs ${where.length ? `WHERE ${where.join(' AND ')} ` : ''}ORDER BY updated_at DESC, run_id LIMIT ?`,
    [...params, limit],
  );
  return found.map((r) => decodeJson<RunRecord>(r.body));
}

/**
 * Apply newly appended events of one run to its record, inside the append's transaction: the record
 * is read and written once for the whole batch. The update is conditional on the sequence it read,
 * so a concurrent writer's newer state is never overwritten. A batch that ends the run failed,
 * budget-exhausted or blocked by a guardrail also stores its failure sample, in the same transaction.
 * @throws `store.unavailable` when the record kept moving under it.
 */
export function* projectRunProgram(runId: string, events: readonly StoredEvent[]): SqlProgram<void> {
  for (let attempt = 0; attempt < MAX_PROJECTION_ATTEMPTS; attempt++) {
    const current = yield* getRunProgram(runId);
    let next = current;
    for (const event of events) next = applyEventToRun(next, event) ?? next;
    if (next === undefined || next === current) return;
    if ((yield* writeRunRecordProgram(current, next)) === 1) {
      const sample = failureSampleOf(current, next);
      if (sample) yield* recordFailureSampleProgram(sample);
      return;
    }
  }
  throw new StoreError('store.unavailable', `run record ${runId} kept changing; retry`, { runId });
}

/**
 * Write `next` over `current` (the record as read; undefined: none yet). The update is conditional on
 * `current`'s last sequence.
 * @returns the rows changed: 0 when another writer moved the record (or inserted it) meanwhile.
 */
export function* writeRunRecordProgram(current: RunRecord | undefined, next: RunRecord): SqlProgram<number> {
  const body = encodeJson(next, MAX_RECORD_BYTES, 'run record');
  return current === undefined
    ? yield* exec(
        `INSERT INTO runs (run_id, profile, policy, status, last_seq, created_at, updated_at, body, tenant_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        [
          next.runId,
          next.versions.profile,
          next.versions.policy,
          next.status,
          next.lastSeq,
          next.createdAt,
          next.updatedAt,
          body,
          next.tenantId ?? null,
        ],
      )
    : yield* exec(
        'UPDATE runs SET status = ?, last_seq = ?, updated_at = ?, body = ?, tenant_id = ? WHERE run_id = ? AND last_seq = ?',
        [next.status, next.lastSeq, next.updatedAt, body, next.tenantId ?? null, next.runId, current.lastSeq],
      );
}
