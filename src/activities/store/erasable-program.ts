import { createHash, randomBytes } from 'node:crypto';
import {
  COMMIT_KEY,
  COMMITMENT_MISMATCH,
  WITHHELD_BY_POLICY,
  commitmentDigest,
  findCommitments,
  findErasable,
  opens,
  openingValue,
  replaceAt,
  type Opening,
} from '../../contract/erasable-values.js';
import type { ErasableRule } from '../../contract/erasable-rule.js';
import { MAX_RECORD_BYTES, type StoredEvent } from '../../contract/store-records.js';
import { decodeJson, encodeJson } from './codec.js';
import { exec, rows } from './sql.js';
import type { SqlProgram } from './sql.js';

/** Lowercase hex SHA-256 of bytes (node:crypto). */
const sha256Bytes = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The body an event is stored with, and the openings of its commitments (none: no erasable value). */
export interface CommittedEvent {
  readonly body: string;
  readonly openings: readonly Opening[];
}

/**
 * The stored form of `event`: its canonical JSON (`plain`, already bounded) with each erasable value
 * replaced by its salted commitment (contract/erasable-values.ts; `rule`: the app's declared fields
 * besides the default, contract/erasable-rule.ts). A value stored under the same
 * (run, seq, path) keeps its salt, so the same event sent again has the same body (an idempotent
 * write); a new value gets 32 fresh random bytes. Runs in the caller's transaction.
 * @throws `store.payload_too_large` when the committed body is over the record bound.
 */
export function* commitEventProgram(
  event: StoredEvent,
  plain: string,
  rule?: ErasableRule,
): SqlProgram<CommittedEvent> {
  const found = findErasable(event, rule);
  if (found.length === 0) return { body: plain, openings: [] };
  const stored = yield* rows<{ path: string; salt: string; value: string }>(
    'SELECT path, salt, value FROM erasable_values WHERE run_id = ? AND seq = ?',
    [event.runId, event.seq],
  );
  const tree = decodeJson<StoredEvent>(plain);
  const openings: Opening[] = [];
  for (const { path, value } of found) {
    const text = openingValue(value);
    const kept = stored.find((s) => s.path === path && s.value === text);
    const salt = kept?.salt ?? randomBytes(32).toString('hex');
    replaceAt(tree, path, { [COMMIT_KEY]: commitmentDigest(sha256Bytes, salt, text) });
    openings.push({ path, salt, value: text });
  }
  return { body: encodeJson(tree, MAX_RECORD_BYTES, 'event'), openings };
}

/** Store the openings of a newly inserted event (replacing any left under its (run, seq)). */
export function* storeOpeningsProgram(
  runId: string,
  seq: number,
  openings: readonly Opening[],
): SqlProgram<void> {
  if (openings.length === 0) return;
  yield* exec('DELETE FROM erasable_values WHERE run_id = ? AND seq = ?', [runId, seq]);
  for (const o of openings)
    yield* exec('INSERT INTO erasable_values (run_id, seq, path, salt, value) VALUES (?, ?, ?, ?, ?)', [
      runId,
      seq,
      o.path,
      o.salt,
      o.value,
    ]);
}

/** Delete the openings of the run's events from `fromSeq` on (to `toSeq` when given), with their events. */
export function* dropOpeningsProgram(runId: string, fromSeq: number, toSeq?: number): SqlProgram<void> {
  if (toSeq === undefined)
    yield* exec('DELETE FROM erasable_values WHERE run_id = ? AND seq >= ?', [runId, fromSeq]);
  else
    yield* exec('DELETE FROM erasable_values WHERE run_id = ? AND seq >= ? AND seq <= ?', [
      runId,
      fromSeq,
      toSeq,
    ]);
}

/** Every opening of a run's events still stored, by sequence and path. */
export function* listOpeningsProgram(runId: string): SqlProgram<(Opening & { readonly seq: number })[]> {
  const found = yield* rows<{ seq: number | string; path: string; salt: string; value: string }>(
    'SELECT seq, path, salt, value FROM erasable_values WHERE run_id = ? ORDER BY seq, path',
    [runId],
  );
  return found.map((r) => ({ seq: Number(r.seq), path: r.path, salt: r.salt, value: r.value }));
}

/**
 * Decode stored event bodies of one run with their erasable values joined back: a commitment whose
 * opening is stored becomes its value again; one whose opening was erased becomes
 * {@link WITHHELD_BY_POLICY}; a stored value that does not open its commitment becomes
 * {@link COMMITMENT_MISMATCH}. One query for the page, only when a body holds a commitment.
 */
export function* openEventsProgram(
  runId: string,
  bodies: readonly { readonly seq: number; readonly body: string }[],
): SqlProgram<StoredEvent[]> {
  const committed = bodies.filter((b) => b.body.includes(`"${COMMIT_KEY}"`));
  const first = committed[0];
  const last = committed.at(-1);
  if (first === undefined || last === undefined) return bodies.map((b) => decodeJson<StoredEvent>(b.body));
  const stored = yield* rows<{ seq: number | string; path: string; salt: string; value: string }>(
    'SELECT seq, path, salt, value FROM erasable_values WHERE run_id = ? AND seq >= ? AND seq <= ?',
    [runId, first.seq, last.seq],
  );
  const byKey = new Map(stored.map((s) => [`${Number(s.seq)} ${s.path}`, s]));
  return bodies.map((b) => {
    const event = decodeJson<StoredEvent>(b.body);
    for (const { path, commitment } of findCommitments(event)) {
      const o = byKey.get(`${b.seq} ${path}`);
      const shown =
        o === undefined
          ? WITHHELD_BY_POLICY
          : opens(sha256Bytes, commitment, o)
            ? decodeJson<unknown>(o.value)
            : COMMITMENT_MISMATCH;
      replaceAt(event, path, shown);
    }
    return event;
  });
}
