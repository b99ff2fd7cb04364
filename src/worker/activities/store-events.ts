import { unpackEvents, type PackedEvents } from '../../core/runner/packed-events.js';
import type { EvidenceStore } from '../store/index.js';

/**
 * Write the run's outbox events to the evidence store in one transaction, exactly once per (run,
 * sequence): a retry that writes them again is a no-op in the store.
 */
export async function storeEvents(store: EvidenceStore, packed: PackedEvents): Promise<void> {
  await store.appendEvents(
    unpackEvents(packed).map((e) => ({
      runId: e.runId,
      seq: e.sequence,
      eventId: e.eventId,
      type: e.type,
      occurredAt: e.occurredAt,
      data: { ...e.data },
      envelope: { ...e },
    })),
  );
}
