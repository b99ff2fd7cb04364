import type { EvidenceStore } from '../../contract/evidence-store.js';
import { SqlEvidenceStore } from './sql-evidence-store.js';
import type { SqlRetrieval } from './sql-retrieval.js';

/** The retrieval port of a store opened by `openEvidenceStore`; undefined for any other store. Never throws. */
export function retrievalOf(store: EvidenceStore): SqlRetrieval | undefined {
  return store instanceof SqlEvidenceStore ? store.retrieval() : undefined;
}
