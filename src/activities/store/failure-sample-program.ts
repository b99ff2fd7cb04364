import { decodeJson, encodeJson } from './codec.js';
import type { FailureReason, FailureSampleRecord } from '../../contract/failure-sample-record.js';
import { MAX_RECORD_BYTES } from '../../contract/store-records.js';
import { exec, rows } from './sql.js';
import type { SqlProgram, SqlValue } from './sql.js';

/** Store a run's failure sample; a run keeps its first sample (a repeated end changes nothing). */
export function* recordFailureSampleProgram(sample: FailureSampleRecord): SqlProgram<void> {
  yield* exec(
    `INSERT INTO failure_samples (run_id, reason, code, ended_at, tenant_id, body)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    [
      sample.runId,
      sample.reason,
      sample.code,
      sample.endedAt,
      sample.tenantId ?? null,
      encodeJson(sample, MAX_RECORD_BYTES, 'failure sample'),
    ],
  );
}

export function* getFailureSampleProgram(runId: string): SqlProgram<FailureSampleRecord | undefined> {
  const found = yield* rows<{ body: string }>('SELECT body FROM failure_samples WHERE run_id = ?', [runId]);
  return found[0] === undefined ? undefined : decodeJson<FailureSampleRecord>(found[0].body);
}

/** Failure samples, newest end first; ended at or after `since` (ISO 8601), of one reason. */
export function* listFailureSamplesProgram(
  filter: { readonly since?: string; readonly reason?: FailureReason; readonly tenantId?: string },
  limit: number,
): SqlProgram<FailureSampleRecord[]> {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (filter.since !== undefined) {
    where.push('ended_at >= ?');
    params.push(filter.since);
  }
  if (filter.reason !== undefined) {
    where.push('reason = ?');
    params.push(filter.reason);
  }
  if (filter.tenantId !== undefined) {
    where.push('tenant_id = ?');
    params.push(filter.tenantId);
  }
  const found = yield* rows<{ body: string }>(
    `SELECT body FROM failure_samples ${where.length ? `WHERE ${where.join(' AND ')} ` : ''}ORDER BY ended_at DESC, run_id LIMIT ?`,
    [...params, limit],
  );
  return found.map((r) => decodeJson<FailureSampleRecord>(r.body));
}
