import { rechainProgram } from './chain-program.js';
import { encodeJson } from './codec.js';
import {
  commitEventProgram,
  dropOpeningsProgram,
  openEventsProgram,
  storeOpeningsProgram,
} from './erasable-program.js';
import { StoreError } from './errors.js';
import { recordFailureSampleProgram } from './failure-sample-program.js';
import { failureSampleOf } from '../../contract/failure-sample-record.js';
import type { ErasableRule } from '../../contract/erasable-rule.js';
import { MAX_RECORD_BYTES, type StoredEvent } from '../../contract/store-records.js';
import { applyEventToRun, type RunRecord } from '../../contract/run-record.js';
import { projectRunProgram, writeRunRecordProgram } from './run-program.js';
import { exec, insertOrCompare, rows } from './sql.js';
import type { SqlProgram } from './sql.js';
import { EVENT_PAGE_MAX, listEventsProgram } from './stream-program.js';

export interface AppendEventsOptions {
  /**
   * The events are the last flush of a workflow execution: a local activity, which runs inside its
   * workflow task. They are stored provisional: should that task attempt be abandoned after they were
   * committed, the retried attempt's events may replace them (see {@link appendEventsProgram}).
   */
  readonly lastFlush?: boolean;
  /** The app's declared erasable fields besides the default rule (contract/erasable-rule.ts). */
  readonly erasable?: ErasableRule;
}

/**
 * Append events; the newly inserted ones then move their runs' records, once per run (see
 * projectRunProgram). An event already stored under its (run, seq) must be identical, with one
 * exception: provisional events, left by the last flush of a workflow task attempt that was then
 * abandoned (its worker died, the task timed out, or the server refused its completion because a
 * signal came meanwhile). The retried attempt's events are what the run's history records, and they
 * come with a later workflow clock. When a batch meets events stored from its first sequence on:
 * - events stored exactly as the batch holds them stand (a failed activity's events, sent again);
 *   the rules below apply from the first that differs;
 * - if any of the rest is final (not provisional), the stored events stand: `store.conflict`;
 * - if they are stamped later than the batch, the batch is the late commit of an attempt older than
 *   them (its worker stalled): it changes nothing, and is refused unless it holds the same events
 *   apart from their clock (refused too when differing events carry the same clock);
 * - if they are the same events apart from their clock, the first record stands and only the missing
 *   events are stored;
 * - otherwise (the retry handled a signal first and numbered its events differently, counted more
 *   refusals, or took another path) they are replaced by the batch, and the run's record and failure
 *   sample are projected again from all its events.
 * Every path that stores or replaces events links the run's events from the batch's first sequence on
 * into its hash chain again (rechainProgram), so the chain covers exactly the events that stand.
 * Runs in the caller's transaction.
 * @throws `store.conflict` as above, or for an event id used by another run.
 */
export function* appendEventsProgram(
  events: readonly StoredEvent[],
  o: AppendEventsOptions = {},
): SqlProgram<void> {
  const provisional = o.lastFlush === true ? 1 : 0;
  const inserted: StoredEvent[] = [];
  let conflict: StoreError | undefined;
  for (const event of events) {
    try {
      if ((yield* insertEvent(event, provisional, o.erasable)) === 'inserted') inserted.push(event);
    } catch (err) {
      if (!(err instanceof StoreError) || err.code !== 'store.conflict') throw err;
      conflict = err;
      break;
    }
  }
  if (conflict !== undefined) {
    yield* settleAbandonedFlush(events, provisional, inserted, conflict, o.erasable);
    yield* rechainProgram(events[0]!.runId, Math.min(...events.map((e) => e.seq)));
    return;
  }
  const byRun = new Map<string, StoredEvent[]>();
  for (const event of inserted) {
    const ofRun = byRun.get(event.runId);
    if (ofRun) ofRun.push(event);
    else byRun.set(event.runId, [event]);
  }
  for (const [runId, ofRun] of byRun) {
    yield* projectRunProgram(runId, ofRun);
    yield* rechainProgram(runId, Math.min(...ofRun.map((e) => e.seq)));
  }
}

/** Insert one event in its stored form (erasable values committed), with its openings when new. */
function* insertEvent(
  event: StoredEvent,
  provisional: 0 | 1,
  rule: ErasableRule | undefined,
): SqlProgram<'inserted' | 'identical'> {
  const plain = encodeJson(event, MAX_RECORD_BYTES, 'event');
  const { body, openings } = yield* commitEventProgram(event, plain, rule);
  const outcome = yield* insertOrCompare(
    'events',
    {
      run_id: event.runId,
      seq: event.seq,
      event_id: event.eventId,
      type: event.type,
      occurred_at: event.occurredAt,
      body,
      provisional,
    },
    ['run_id', 'seq'],
    `event ${event.runId}#${event.seq} (${event.eventId})`,
  );
  if (outcome === 'inserted') yield* storeOpeningsProgram(event.runId, event.seq, openings);
  return outcome;
}

/** A batch met stored events: the rules of {@link appendEventsProgram}. */
function* settleAbandonedFlush(
  events: readonly StoredEvent[],
  provisional: 0 | 1,
  insertedBefore: readonly StoredEvent[],
  conflict: StoreError,
  rule: ErasableRule | undefined,
): SqlProgram<void> {
  const runId = events[0]!.runId;
  if (events.some((e) => e.runId !== runId)) throw conflict;
  // One settlement of a run at a time (PostgreSQL: the run record's row lock, held to the commit; the
  // SQLite writer holds the database's lock already).
  yield* exec('UPDATE runs SET last_seq = last_seq WHERE run_id = ?', [runId]);
  // What this batch inserted before it met the stored events is taken back: it is decided below.
  for (const e of insertedBefore) {
    yield* exec('DELETE FROM events WHERE run_id = ? AND seq = ?', [runId, e.seq]);
    yield* dropOpeningsProgram(runId, e.seq, e.seq);
  }
  const all = [...events].sort((a, b) => a.seq - b.seq);
  const storedRows = yield* rows<{ seq: number | string; body: string; provisional: number | string }>(
    'SELECT seq, body, provisional FROM events WHERE run_id = ? AND seq >= ? ORDER BY seq',
    [runId, all[0]!.seq],
  );
  // Compared as the events were sent: their erasable values joined back.
  const opened = yield* openEventsProgram(
    runId,
    storedRows.map((r) => ({ seq: Number(r.seq), body: r.body })),
  );
  const found = storedRows.map((row, i) => ({
    body: encodeJson(opened[i], MAX_RECORD_BYTES, 'event'),
    provisional: Number(row.provisional) === 1,
    event: opened[i]!,
  }));
  // A batch may begin with events stored before, exactly as it holds them (a failed activity's
  // events, sent again with the next one): they stand, and the rules apply from the first that is not.
  let skip = 0;
  while (
    skip < found.length &&
    skip < all.length &&
    found[skip]!.event.seq === all[skip]!.seq &&
    found[skip]!.body === encodeJson(all[skip], MAX_RECORD_BYTES, 'event')
  )
    skip += 1;
  const ordered = all.slice(skip);
  const stored = found.slice(skip);
  // Nothing differs from there on (the conflict was another run's event id), or final events: they stand.
  if (ordered.length === 0 || stored.length === 0 || stored.some((s) => !s.provisional)) throw conflict;
  const first = ordered[0]!.seq;
  const same =
    stored.length <= ordered.length &&
    stored.every((s, i) => sameApartFromClock(s.body, s.event, ordered[i]!));
  const batchClock = latestClock(ordered);
  const storedClock = latestClock(stored.map((s) => s.event));
  if (same) {
    // A late commit of the same events changes nothing; otherwise the first record stands.
    if (batchClock < storedClock) return;
    const missing = ordered.slice(stored.length);
    for (const e of missing) yield* insertEvent(e, provisional, rule);
    if (missing.length > 0) yield* projectRunProgram(runId, missing);
    return;
  }
  if (batchClock <= storedClock)
    throw new StoreError(
      'store.conflict',
      `events of run ${runId} from sequence ${first} on are not newer than the provisional events stored there, and differ from them: the late commit of an abandoned workflow task attempt; the stored events stand`,
      { table: 'events', key: { run_id: runId, seq: first } },
    );
  yield* exec('DELETE FROM events WHERE run_id = ? AND seq >= ?', [runId, first]);
  yield* dropOpeningsProgram(runId, first);
  for (const e of ordered) yield* insertEvent(e, provisional, rule);
  yield* reprojectRunProgram(runId);
}

/** The latest `occurredAt` of `events` (epoch ms; an unreadable time counts as the earliest). */
function latestClock(events: readonly StoredEvent[]): number {
  let latest = Number.NEGATIVE_INFINITY;
  for (const e of events) {
    const at = Date.parse(e.occurredAt);
    if (at > latest) latest = at;
  }
  return latest;
}

/** Is the stored event (`kept`, its canonical JSON `body`) `e`, but for the workflow clock it was stamped with? */
function sameApartFromClock(body: string, kept: StoredEvent, e: StoredEvent): boolean {
  if (kept.seq !== e.seq) return false;
  const envelope =
    'occurredAt' in e.envelope ? { ...e.envelope, occurredAt: kept.envelope.occurredAt } : e.envelope;
  return encodeJson({ ...e, occurredAt: kept.occurredAt, envelope }, MAX_RECORD_BYTES, 'event') === body;
}

/**
 * Project the run's record again from all its events, after events it had applied were replaced, and
 * its failure sample with it (the replaced events may have ended the run, or ended it otherwise).
 * Reads every event of the run: a rare path (an abandoned workflow task attempt that a different one
 * replaced).
 */
export function* reprojectRunProgram(runId: string): SqlProgram<void> {
  let next: RunRecord | undefined;
  for (let after = -1; ;) {
    const page = yield* listEventsProgram(runId, after, EVENT_PAGE_MAX);
    for (const event of page) next = applyEventToRun(next, event) ?? next;
    if (page.length < EVENT_PAGE_MAX) break;
    after = page[page.length - 1]!.seq;
  }
  // The record and sample are written anew, every column included (the creation time may have moved).
  yield* exec('DELETE FROM failure_samples WHERE run_id = ?', [runId]);
  yield* exec('DELETE FROM runs WHERE run_id = ?', [runId]);
  if (next === undefined) return;
  yield* writeRunRecordProgram(undefined, next);
  const sample = failureSampleOf(undefined, next);
  if (sample) yield* recordFailureSampleProgram(sample);
}
