import { z } from 'zod';
import { ModelError } from './errors.js';
import type { ModelUsage } from './types.js';

/** USD per million tokens for one model route. */
export const ModelPriceSchema = z.object({
  inputUsdPerMTok: z.number().nonnegative(),
  outputUsdPerMTok: z.number().nonnegative(),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/**
 * Prices keyed by model route name (the request's `model`). The key `*` is the price of any route
 * without its own entry; without `*`, an unknown route fails with `model.route_unpriced`.
 */
export const PriceTableSchema = z.record(z.string().min(1), ModelPriceSchema);
export type PriceTable = z.infer<typeof PriceTableSchema>;

/** A table that prices every route at zero (scripted runs, local servers). */
export const ZERO_PRICES: PriceTable = { '*': { inputUsdPerMTok: 0, outputUsdPerMTok: 0 } };

/**
 * The price of `route`. Throws `model.route_unpriced` (non-retryable) when neither the route nor `*`
 * is in the table; providers call it before any network I/O so an unpriced call never runs.
 */
export function priceFor(table: PriceTable, route: string): ModelPrice {
  const price = table[route] ?? table['*'];
  if (price === undefined) {
    throw new ModelError(
      'model.route_unpriced',
      `model route "${route}" has no price: add it (or "*") to the price table (HARNESS_MODEL_PRICES)`,
      { details: { route } },
    );
  }
  return price;
}

/** Cost in USD of a completed call's final usage, rounded to 1e-9 USD. */
export function costUsd(price: ModelPrice, usage: ModelUsage): number {
  const raw =
    (usage.inputTokens * price.inputUsdPerMTok + usage.outputTokens * price.outputUsdPerMTok) / 1_000_000;
  return Math.round(raw * 1e9) / 1e9;
}
