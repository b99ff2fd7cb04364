import { decodeJson, encodeJson } from './codec.js';
import { MAX_RECORD_BYTES, type StoredEvent } from './records.js';
import { failureSampleOf } from './failure-sample-record.js';
import { recordFailureSampleProgram } from './failure-sample-program.js';
import { applyEventToRun, type RunRecord } from './run-record.js';
import { getRunProgram, writeRunRecordProgram } from './run-program.js';
import { appendEventsProgram, EVENT_PAGE_MAX, listEventsProgram } from './stream-program.js';
import { StoreError } from './errors.js';
import { exec, rows } from './sql.js';
import type { SqlProgram } from './sql.js';

/**
 * Store the last flush of a workflow execution: a local activity, which runs inside its workflow task.
 * When that task does not complete after the events were committed (its worker died, the task timed
 * out, or the server refused it because a signal came meanwhile), the retried task flushes again, and
 * what it flushes is what the run's history records. Until the retried flush completes nothing else
 * writes at or after the batch's first sequence (the earlier flushes hold the lower sequences, the
 * next generation starts after it), so what is stored there came from an abandoned attempt of this
 * flush, stamped with that attempt's earlier workflow clock:
 * - none: the batch is appended;
 * - the same events apart from their clock: the first record stands and only the missing events are
 *   stored;
 * - anything else (a signal that came between the attempts is handled before the events the first
 *   attempt recorded, so the retried attempt numbers them differently, or counts it in a refusal
 *   count the first attempt recorded lower; or the retry took another path): the abandoned attempt's
 *   events from the batch's first sequence on are replaced by the batch, and the run's record is
 *   projected again from all its events.
 * An abandoned attempt's flush that commits late (its worker stalled) meets events stamped later than
 * its own, from the retried flush or the next generation: it changes nothing, and is refused
 * (`store.conflict`) unless those are its own events. One transaction.
 * @throws `store.invalid_record` for a batch of more than one run; `store.conflict` for a late flush of
 *   an abandoned attempt that differs from what is stored; as appendEvents otherwise.
 */
export function* appendLastFlushProgram(events: readonly StoredEvent[]): SqlProgram<void> {
  const runId = events[0]?.runId;
  if (runId === undefined) return;
  if (events.some((e) => e.runId !== runId))
    throw new StoreError('store.invalid_record', 'a last flush holds the events of one run', { runId });
  const ordered = [...events].sort((a, b) => a.seq - b.seq);
  const first = ordered[0]!.seq;
  const stored = (yield* rows<{ body: string }>(
    'SELECT body FROM events WHERE run_id = ? AND seq >= ? ORDER BY seq',
    [runId, first],
  )).map((row) => ({ body: row.body, event: decodeJson<StoredEvent>(row.body) }));
  if (stored.length === 0) {
    yield* appendEventsProgram(ordered);
    return;
  }
  const sameEvents =
    stored.length <= ordered.length &&
    stored.every((s, i) => sameApartFromClock(s.body, s.event, ordered[i]!));
  // A retried attempt runs on a later workflow clock than the one it replaces; an older one is late.
  const late = latestClock(ordered) < latestClock(stored.map((s) => s.event));
  if (sameEvents) {
    if (!late) yield* appendEventsProgram(ordered.slice(stored.length));
    return;
  }
  if (late)
    throw new StoreError(
      'store.conflict',
      `the last flush of run ${runId} from sequence ${first} on is older than the events stored there, and differs from them: a late flush of an abandoned workflow task attempt; the stored events stand`,
      { table: 'events', key: { run_id: runId, seq: first } },
    );
  yield* exec('DELETE FROM events WHERE run_id = ? AND seq >= ?', [runId, first]);
  yield* appendEventsProgram(ordered);
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
 * Project the run's record again from all its events (after events it had applied were replaced).
 * A run that ends failed by the replacing events gets its failure sample, as on any append.
 */
function* reprojectRunProgram(runId: string): SqlProgram<void> {
  const current = yield* getRunProgram(runId);
  let next: RunRecord | undefined;
  for (let after = 0; ;) {
    const page = yield* listEventsProgram(runId, after, EVENT_PAGE_MAX);
    for (const event of page) next = applyEventToRun(next, event) ?? next;
    if (page.length < EVENT_PAGE_MAX) break;
    after = page[page.length - 1]!.seq;
  }
  if (next === undefined) {
    yield* exec('DELETE FROM runs WHERE run_id = ?', [runId]);
    return;
  }
  // In the append's transaction: the record read above is the one replaced.
  if ((yield* writeRunRecordProgram(current, next)) !== 1)
    throw new StoreError(
      'store.unavailable',
      `run record ${runId} changed while it was projected again; retry`,
      {
        runId,
      },
    );
  const sample = failureSampleOf(current, next);
  if (sample) yield* recordFailureSampleProgram(sample);
}
