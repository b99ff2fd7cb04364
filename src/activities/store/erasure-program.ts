import { canonicalJson, utf8ByteLength } from '../../contract/canonical-json.js';
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
 * `sign` when given (contract/erasure-record.ts); a run whose erased paths would not fit one record's
 * {@link MAX_ERASURE_RECORD_BYTES} gets several, chained one after the other, each with its share of
 * the paths and of the values (the verifier sums them), and project the run's record and failure sample again
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
  for (const runId of runIds) records.push(...(yield* eraseRunProgram(runId, req, subject, sign)));
  return records;
}

/** Most bytes of one stored erasure record (its canonical JSON). */
export const MAX_ERASURE_RECORD_BYTES = 64 * 1024;
/** Room a record keeps for its `hash` and signed `head` (at most 4,096 characters), added last. */
const HASH_AND_HEAD_BYTES = 4_400;

/**
 * The run's erased paths (sorted) cut into runs of paths that fit one record beside its other fields
 * (`fixed`: the record without paths, as bytes): one chunk unless there are thousands of paths.
 */
function pathChunks(paths: readonly string[], fixed: number): string[][] {
  const room = MAX_ERASURE_RECORD_BYTES - HASH_AND_HEAD_BYTES - fixed;
  const chunks: string[][] = [];
  let chunk: string[] = [];
  let used = 0;
  for (const path of paths) {
    const bytes = utf8ByteLength(canonicalJson(path)) + 1;
    if (chunk.length > 0 && used + bytes > room) {
      chunks.push(chunk);
      chunk = [];
      used = 0;
    }
    chunk.push(path);
    used += bytes;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

function* eraseRunProgram(
  runId: string,
  req: ErasureRequest,
  subject: string | undefined,
  sign: SignErasureHead | undefined,
): SqlProgram<ErasureRecord[]> {
  const stored = yield* rows<{ seq: number | string; path: string; value: string }>(
    'SELECT seq, path, value FROM erasable_values WHERE run_id = ? ORDER BY seq, path',
    [runId],
  );
  const chosen = stored.filter(
    (s) =>
      (req.paths === undefined || req.paths.includes(dataPath(s.path))) &&
      (subject === undefined || s.value === subject),
  );
  if (chosen.length === 0) return [];
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
  const base = {
    runId,
    erasedAt: new Date(req.at).toISOString(),
    actor: req.actor,
    reason: req.reason ?? null,
  };
  const widest: ErasureRecord = {
    ...base,
    seq: Number.MAX_SAFE_INTEGER,
    paths: [],
    values: Number.MAX_SAFE_INTEGER,
    events: Number.MAX_SAFE_INTEGER,
    prev: `sha256:${'0'.repeat(64)}`,
  };
  const byPath = new Map<string, typeof chosen>();
  for (const s of chosen) {
    const at = dataPath(s.path);
    const values = byPath.get(at);
    if (values) values.push(s);
    else byPath.set(at, [s]);
  }
  const records: ErasureRecord[] = [];
  let seq = Number(last?.seq ?? 0);
  let prev = last?.chain_hash ?? null;
  for (const paths of pathChunks([...byPath.keys()].sort(), utf8ByteLength(canonicalJson(widest)))) {
    const values = paths.flatMap((p) => byPath.get(p) ?? []);
    seq += 1;
    const unsigned: ErasureRecord = {
      ...base,
      seq,
      paths,
      values: values.length,
      events: new Set(values.map((s) => Number(s.seq))).size,
      prev,
    };
    const hash = erasureHash(sha256Text, unsigned);
    const iat = Math.floor(Date.parse(unsigned.erasedAt) / 1000);
    const record: ErasureRecord = {
      ...unsigned,
      hash,
      ...(sign ? { head: sign({ run: runId, seq, head: hash, iat }) } : {}),
    };
    // Two erasures that read the same latest record both number theirs after it: the later insert
    // waits for the earlier one's transaction and, once that committed, inserts nothing (no chain fork).
    const inserted = yield* exec(
      'INSERT INTO erasures (run_id, seq, erased_at, body, chain_hash) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      [runId, seq, record.erasedAt, encodeJson(record, MAX_ERASURE_RECORD_BYTES, 'erasure'), hash],
    );
    if (inserted !== 1) throw conflict(runId, `as erasure #${seq}`);
    records.push(record);
    prev = hash;
  }
  yield* reprojectRunProgram(runId);
  return records;
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
