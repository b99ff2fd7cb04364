import { isHarnessError } from '../../contract/errors.js';
import type { EventDerivation, PackedEventsByRef } from '../../core/runner/packed-events-by-ref.js';
import { unpackEvents, type PackedEvents } from '../../core/runner/packed-events.js';
import type { EvidenceStore, StoredEvent } from '../store/index.js';
import { restorePackedEvents } from './run-header.js';

export interface StoreEventsOptions {
  /**
   * The events come from a local activity (the last flush of an execution). A local activity runs
   * inside its workflow task: when the task does not complete after the events were committed (its
   * worker died, or the task timed out), the retried task flushes the same events again, stamped
   * with its own later workflow clock. Then an event already stored under its (run, sequence) with the
   * same id and type is that event: the first record stands, and only the missing events are stored.
   */
  readonly local?: boolean;
  /** What the activity's input says of the events a batch by reference left out (packed-events-by-ref.ts). */
  readonly derive?: EventDerivation;
  /** The run the activity serves: a batch by reference whose header names another is refused. */
  readonly runId?: string;
}

/**
 * The batch as the store takes it, nothing of it stored yet: a batch by header reference is restored
 * first (run-header.ts: a header it carries is stored as a blob). For an activity that stores the
 * events in the transaction of its own first write (`recordIntentWithEvents`, `putIndexedBlobs`).
 * @throws a batch by reference whose header cannot be restored, as {@link restorePackedEvents} says.
 */
export async function eventsOf(
  store: EvidenceStore,
  batch: PackedEvents | PackedEventsByRef,
  o: Pick<StoreEventsOptions, 'derive' | 'runId'> = {},
): Promise<StoredEvent[]> {
  const packed = await restorePackedEvents(store, batch, o.derive, o.runId);
  return unpackEvents(packed).map((e) => ({
    runId: e.runId,
    seq: e.sequence,
    eventId: e.eventId,
    type: e.type,
    occurredAt: e.occurredAt,
    data: { ...e.data },
    envelope: { ...e },
  }));
}

/**
 * Write the run's outbox events to the evidence store in one transaction, exactly once per (run,
 * sequence): a retry that writes them again is a no-op in the store. A batch by header reference is
 * restored first (see {@link eventsOf}).
 * @throws StoreError `store.conflict` when a sequence holds different content (with `local`: another
 *   event, by id or type); the store's other errors as they are; a batch by reference whose header
 *   cannot be restored as {@link restorePackedEvents} says.
 */
export async function storeEvents(
  store: EvidenceStore,
  batch: PackedEvents | PackedEventsByRef,
  o: StoreEventsOptions = {},
): Promise<void> {
  const events = await eventsOf(store, batch, o);
  try {
    await store.appendEvents(events);
  } catch (err) {
    if (o.local !== true || !isHarnessError(err, 'store.conflict')) throw err;
    for (const event of events) await storeOrKeepFirst(store, event);
  }
}

/** Store one event, or keep the one stored under its sequence when it is the same event (id and type). */
async function storeOrKeepFirst(store: EvidenceStore, event: StoredEvent): Promise<void> {
  try {
    await store.appendEvents([event]);
  } catch (err) {
    if (!isHarnessError(err, 'store.conflict')) throw err;
    const [stored] = await store.listEvents(event.runId, { afterSeq: event.seq - 1, limit: 1 });
    if (stored?.seq !== event.seq || stored.eventId !== event.eventId || stored.type !== event.type)
      throw err;
  }
}
