import { z } from 'zod';
import { parseRecord } from './codec.js';
import { StoreError } from './errors.js';
import { CallIdSchema, ModelDeltaSchema, type ModelDelta } from '../../contract/store-records.js';

/**
 * A model call's deltas checked before any I/O: each valid, no index twice.
 * @throws StoreError `store.invalid_record` for an invalid call id or delta, or an index given twice.
 */
export function validDeltas(
  callId: string,
  deltas: readonly ModelDelta[],
): { call: string; list: ModelDelta[] } {
  const call = parseRecord(CallIdSchema, callId, 'call id');
  const list = parseRecord(z.array(ModelDeltaSchema), deltas, 'model deltas');
  const seen = new Set<number>();
  for (const d of list) {
    if (seen.has(d.index))
      throw new StoreError('store.invalid_record', `model delta index ${d.index} is given twice`, {
        index: d.index,
      });
    seen.add(d.index);
  }
  return { call, list };
}
