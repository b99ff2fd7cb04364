import { decodeJson, encodeJson } from './codec.js';
import { MAX_RECORD_BYTES, type StoredEvent } from './records.js';
import { applyEventToRun, type RunRecord } from './run-record.js';
import { StoreError } from './errors.js';
import { exec, rows } from './sql.js';
import type { SqlProgram } from './sql.js';

/** Attempts of the optimistic update before giving up (another writer kept moving the same run). */
const MAX_PROJECTION_ATTEMPTS = 5;

export function* getRunProgram(runId: string): SqlProgram<RunRecord | undefined> {
  const found = yield* rows<{ body: string }>('SELECT body FROM runs WHERE run_id = ?', [runId]);
  return found[0] === undefined ? undefined : decodeJson<RunRecord>(found[0].body);
}

/** Runs ordered by last update, newest first; optionally of one status. */
export function* listRunsProgram(status: string | undefined, limit: number): SqlProgram<RunRecord[]> {
  const found =
    status === undefined
      ? yield* rows<{ body: string }>('SELECT body FROM runs ORDER BY updated_at DESC, run_id LIMIT ?', [
          limit,
        ])
      : yield* rows<{ body: string }>(
          'SELECT body FROM runs WHERE status = ? ORDER BY updated_at DESC, run_id LIMIT ?',
          [status, limit],
        );
  return found.map((r) => decodeJson<RunRecord>(r.body));
}

/**
 * Apply newly appended events of one run to its record, inside the append's transaction: the record
 * is read and written once for the whole batch. The update is conditional on the sequence it read,
 * so a concurrent writer's newer state is never overwritten.
 * @throws `store.unavailable` when the record kept moving under it.
 */
export function* projectRunProgram(runId: string, events: readonly StoredEvent[]): SqlProgram<void> {
  for (let attempt = 0; attempt < MAX_PROJECTION_ATTEMPTS; attempt++) {
    const current = yield* getRunProgram(runId);
    let next = current;
    for (const event of events) next = applyEventToRun(next, event) ?? next;
    if (next === undefined || next === current) return;
    const body = encodeJson(next, MAX_RECORD_BYTES, 'run record');
    const changed =
      current === undefined
        ? yield* exec(
            `INSERT INTO runs (run_id, profile, policy, status, last_seq, created_at, updated_at, body)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
            [
              next.runId,
              next.versions.profile,
              next.versions.policy,
              next.status,
              next.lastSeq,
              next.createdAt,
              next.updatedAt,
              body,
            ],
          )
        : yield* exec(
            'UPDATE runs SET status = ?, last_seq = ?, updated_at = ?, body = ? WHERE run_id = ? AND last_seq = ?',
            [next.status, next.lastSeq, next.updatedAt, body, next.runId, current.lastSeq],
          );
    if (changed === 1) return;
  }
  throw new StoreError('store.unavailable', `run record ${runId} kept changing; retry`, { runId });
}
