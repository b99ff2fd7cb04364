import type { EvidenceStore } from '../../contract/evidence-store.js';
import type { StoredEvent } from '../../contract/store-records.js';

/** Largest page the store returns. */
const PAGE = 5000;

/**
 * Every stored event of a run, in sequence order, read page by page.
 * @throws the store's errors.
 */
export async function readAllEvents(store: EvidenceStore, runId: string): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  let after: number | undefined;
  for (;;) {
    const page = await store.listEvents(runId, {
      ...(after !== undefined ? { afterSeq: after } : {}),
      limit: PAGE,
    });
    all.push(...page);
    const last = page.at(-1);
    if (page.length < PAGE || !last) return all;
    after = last.seq;
  }
}
