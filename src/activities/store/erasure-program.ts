import { HarnessError } from '../../contract/errors.js';
import { dataPath, openingValue } from '../../contract/erasable-values.js';
import {
  erasureHash,
  type ErasureHeadClaims,
  type ErasureRecord,
  type ErasureRequest,
} from '../../contract/erasure-record.js';
import { TERMINAL_STATUSES } from '../../contract/statuses.js';
import { decodeJson, encodeJson } from './codec.js';
import { sha256Text } from './chain-program.js';
import { reprojectRunProgram } from './event-append-program.js';
import { exec, rows } from './sql.js';
import type { SqlProgram } from './sql.js';

/** Signs an erasure record's hash (the erasing process's attestation key); absent: records unsigned. */
export type SignErasureHead = (claims: ErasureHeadClaims) => string;

/** Stable codes of a refused erasure. */
export const ERASURE_NOT_FOUND = 'erasure.not_found';
export const ERASURE_RUN_ACTIVE = 'erasure.run_active';
/**
 * Another erasure of the same run committed while this one ran (PostgreSQL, where two erasures can
 * overlap): this one erased nothing and may be sent again, when it chains after the other.
 */
export const ERASURE_CONFLICT = 'erasure.conflict';

/**
 * Erase the erasable values a request names (contract/erasure-record.ts), in one transaction: delete
 * their salts and values from `erasable_values` (the commitments stay in the chained events, which
 * reads then show as withheld by policy), append one record per run to `erasures` (who, when, why,
 * which paths, how many values; never a value), chained to the run's previous record and signed with
 * `sign` when given (contract/erasure-record.ts), and project the run's record and failure sample again
 * from its events, so they hold no erased value either. A run with nothing left to erase gets no record.
 * @throws HarnessError `erasure.not_found` (a run id the store has no events of),
 *   `erasure.run_active` (a run not finished yet: its later events would store the value again; nothing
 *   is erased, of any run the request names), `erasure.conflict` (another erasure of a run it names
 *   committed meanwhile: a value it read was deleted by that one, or that one took the record number
 *   it chains to; the transaction rolls back, nothing erased, and the same request sent again runs as
 *   an erasure after that one does). On SQLite a write transaction holds the database's write lock from
 *   its start, so erasures never overlap there and `erasure.conflict` does not arise.
 */
export function* eraseProgram(req: ErasureRequest, sign?: SignErasureHead): SqlProgram<ErasureRecord[]> {
  const subject = req.subject === undefined ? undefined : openingValue(req.subject);
  let runIds: string[];
  if (req.runId !== undefined) {
    const known = yield* rows<{ n: number | string }>('SELECT COUNT(*) AS n FROM events WHERE run_id = ?', [
      req.runId,
    ]);
    if (Number(known[0]?.n ?? 0) === 0)
      throw new HarnessError(ERASURE_NOT_FOUND, `the evidence store holds no events of run ${req.runId}`, {
        runId: req.runId,
      });
    runIds = [req.runId];
  } else {
    const found = yield* rows<{ run_id: string }>(
      'SELECT DISTINCT run_id FROM erasable_values WHERE value = ? ORDER BY run_id',
      [subject ?? null],
    );
    runIds = found.map((r) => r.run_id);
  }
  for (const runId of runIds) {
    const status = (yield* rows<{ status: string }>('SELECT status FROM runs WHERE run_id = ?', [runId]))[0];
    if (status === undefined || !(TERMINAL_STATUSES as readonly string[]).includes(status.status))
      throw new HarnessError(
        ERASURE_RUN_ACTIVE,
        `run ${runId} has not finished (${status?.status ?? 'no run record'}): erase its values once it has ended`,
        { runId, status: status?.status ?? null },
      );
  }
  const records: ErasureRecord[] = [];
  for (const runId of runIds) {
    const record = yield* eraseRunProgram(runId, req, subject, sign);
    if (record) records.push(record);
  }
  return records;
}

function* eraseRunProgram(
  runId: string,
  req: ErasureRequest,
  subject: string | undefined,
  sign: SignErasureHead | undefined,
): SqlProgram<ErasureRecord | undefined> {
  const stored = yield* rows<{ seq: number | string; path: string; value: string }>(
    'SELECT seq, path, value FROM erasable_values WHERE run_id = ? ORDER BY seq, path',
    [runId],
  );
  const chosen = stored.filter(
    (s) =>
      (req.paths === undefined || req.paths.includes(dataPath(s.path))) &&
      (subject === undefined || s.value === subject),
  );
  if (chosen.length === 0) return undefined;
  for (const s of chosen) {
    // On PostgreSQL (READ COMMITTED) a row another erasure deletes waits for that one; once it has
    // committed, the row is gone and the values read above are stale: count nothing, refuse.
    const deleted = yield* exec('DELETE FROM erasable_values WHERE run_id = ? AND seq = ? AND path = ?', [
      runId,
      Number(s.seq),
      s.path,
    ]);
    if (deleted !== 1)
      throw conflict(runId, `and erased a value this one read (event #${Number(s.seq)}, ${s.path})`);
  }
  // The run's latest record: the new one's number follows it and its `prev` is its hash (null when
  // there is none, or it was stored before the chain: the verifier fails such a run as unchained).
  const last = (yield* rows<{ seq: number | string; chain_hash: string | null }>(
    'SELECT seq, chain_hash FROM erasures WHERE run_id = ? ORDER BY seq DESC LIMIT 1',
    [runId],
  ))[0];
  const unsigned: ErasureRecord = {
    runId,
    seq: Number(last?.seq ?? 0) + 1,
    erasedAt: new Date(req.at).toISOString(),
    actor: req.actor,
    reason: req.reason ?? null,
    paths: [...new Set(chosen.map((s) => dataPath(s.path)))].sort(),
    values: chosen.length,
    events: new Set(chosen.map((s) => Number(s.seq))).size,
    prev: last?.chain_hash ?? null,
  };
  const hash = erasureHash(sha256Text, unsigned);
  const iat = Math.floor(Date.parse(unsigned.erasedAt) / 1000);
  const record: ErasureRecord = {
    ...unsigned,
    hash,
    ...(sign ? { head: sign({ run: runId, seq: unsigned.seq, head: hash, iat }) } : {}),
  };
  // Two erasures that read the same latest record both number theirs after it: the later insert waits
  // for the earlier one's transaction and, once that committed, inserts nothing (no chain fork).
  const inserted = yield* exec(
    'INSERT INTO erasures (run_id, seq, erased_at, body, chain_hash) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
    [runId, record.seq, record.erasedAt, encodeJson(record, 64 * 1024, 'erasure'), hash],
  );
  if (inserted !== 1) throw conflict(runId, `as erasure #${record.seq}`);
  yield* reprojectRunProgram(runId);
  return record;
}

/** The `erasure.conflict` of `runId`; `how` says what the erasure that committed first took. */
function conflict(runId: string, how: string): HarnessError {
  return new HarnessError(
    ERASURE_CONFLICT,
    `another erasure of run ${runId} committed first ${how}: nothing erased; send the request again`,
    { runId },
  );
}

/** Every erasure of a run, in order. */
export function* listErasuresProgram(runId: string): SqlProgram<ErasureRecord[]> {
  const found = yield* rows<{ body: string }>('SELECT body FROM erasures WHERE run_id = ? ORDER BY seq', [
    runId,
  ]);
  return found.map((r) => decodeJson<ErasureRecord>(r.body));
}
