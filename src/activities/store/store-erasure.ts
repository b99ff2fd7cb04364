import type { EvidenceStore } from '../../contract/evidence-store.js';
import { StoreError } from './errors.js';
import type { SqlErasure } from './sql-erasure.js';
import { SqlEvidenceStore } from './sql-evidence-store.js';

/**
 * The erasure port of a store opened by `openEvidenceStore`.
 * @throws `store.backend_error` for any other store (an app-supplied store keeps no commitments).
 */
export function erasureOf(store: EvidenceStore): SqlErasure {
  if (!(store instanceof SqlEvidenceStore))
    throw new StoreError(
      'store.backend_error',
      'this evidence store keeps no erasable values (not the harness SQL store)',
    );
  return store.erasure();
}
