import type { RefundDrills } from '../../apps/refund/composition.js';
import { storeLatencyFromEnv } from '../../apps/refund/business/store-latency.js';

/**
 * The refund store's fault drills from a worker's environment, for the tests' compositions only:
 * `HARNESS_REFUND_STORE_LATENCY_MS` / `_PHASE` (docs/refund-example.md) and
 * `HARNESS_REFUND_RECONCILE=off` (refund.create without a reconciler),
 * `HARNESS_REFUND_CHANGED_DEFINITIONS=<tool>,<tool>` (those refund tools with another definition under
 * the same version: a build that changed them).
 * @throws RefundExampleError `refund.latency_config_invalid` for a malformed latency.
 */
export function refundDrillsFromEnv(env: NodeJS.ProcessEnv): RefundDrills {
  const changed = env.HARNESS_REFUND_CHANGED_DEFINITIONS?.split(',').filter((s) => s !== '');
  return {
    latency: storeLatencyFromEnv(env),
    reconcile: env.HARNESS_REFUND_RECONCILE !== 'off',
    ...(changed?.length ? { changedDefinitions: changed } : {}),
  };
}
