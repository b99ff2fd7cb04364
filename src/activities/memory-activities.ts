import { ApplicationFailure } from '@temporalio/activity';
import { isHarnessError } from '../contract/errors.js';
import type { MemoryActivities } from '../contract/activity-interfaces.js';
import type { EvidenceStore } from './store/index.js';

/**
 * Thread memory activities over the evidence store. Store outages are thrown as they are (the
 * bookkeeping retry policy tries again); an entry the store refuses is a non-retryable
 * `memory.invalid_entry` (trying again cannot fix it).
 */
export function createMemoryActivities(deps: { readonly store: EvidenceStore }): MemoryActivities {
  return {
    recallMemory: (req) => deps.store.listMemory(req.scope, { now: req.now, limit: req.limit }),
    async writeMemory(entry) {
      try {
        await deps.store.putMemory(entry);
      } catch (err) {
        if (isHarnessError(err, 'store.invalid_record') || isHarnessError(err, 'store.conflict'))
          throw ApplicationFailure.nonRetryable((err as Error).message, 'memory.invalid_entry');
        throw err;
      }
    },
  };
}
