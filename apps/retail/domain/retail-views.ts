import type { RetailOrder } from '../db/retail-types.js';
import { RETAIL_ORDER_OPTIONAL_FIELDS } from '../db/retail-types.js';

/**
 * An order as the benchmark's tools return it (pydantic `model_dump()` of `Order`): every field,
 * the unset optional ones as `null`. (`db.json` and {@link exportRetailDb} leave them out instead.)
 */
export function orderView(order: RetailOrder): Record<string, unknown> {
  const view: Record<string, unknown> = { ...order };
  for (const field of RETAIL_ORDER_OPTIONAL_FIELDS) view[field] = order[field] ?? null;
  return view;
}
