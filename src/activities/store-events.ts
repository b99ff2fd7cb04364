import type { EventDerivation, PackedEventsByRef } from '../contract/packed-events-by-ref.js';
import { unpackEvents, type PackedEvents } from '../contract/packed-events.js';
import type { EvidenceStore, StoredEvent } from './store/index.js';
import { restorePackedEvents } from './run-header.js';

export interface StoreEventsOptions {
  /**
   * The events come from a local activity (the last flush of an execution). A local activity runs
   * inside its workflow task: when the task does not complete after the events were committed (its
   * worker died, the task timed out, or the server refused it because a signal came meanwhile), the
   * retried task flushes again, stamped with its own later workflow clock, and possibly with a signal
   * handled before the events the first attempt recorded. What the retry flushes is what the history
   * records: the store keeps them provisional, keeps the first record of the same events and replaces
   * an abandoned attempt's other ones (EvidenceStore.appendLastFlush).
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
 * @throws StoreError `store.conflict` when a sequence holds different content (with `local`: see
 *   EvidenceStore.appendLastFlush); the store's other errors as they are; a batch by reference whose
 *   header cannot be restored as {@link restorePackedEvents} says.
 */
export async function storeEvents(
  store: EvidenceStore,
  batch: PackedEvents | PackedEventsByRef,
  o: StoreEventsOptions = {},
): Promise<StoredEvent[]> {
  const events = await eventsOf(store, batch, o);
  await (o.local === true ? store.appendLastFlush(events) : store.appendEvents(events));
  return events;
}
