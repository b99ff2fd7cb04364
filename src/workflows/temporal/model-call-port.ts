import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { ModelActivities } from '../../contract/activity-interfaces.js';
import { compactModelInput } from '../../contract/compact-step-input.js';
import { compactModelInputV3 } from '../../contract/compact-step-input-v3.js';
import { modelCallDerivation } from '../../contract/packed-events-by-ref.js';
import { MAX_FAST_TIMEOUT_MS } from '../../contract/tool.js';
import { callPromise } from '../runner/call-promise.js';
import { billedUsageOf } from '../runner/model-routing.js';
import type { ModelDecision, RunnerPorts } from '../runner/ports.js';
import {
  fastReadOptions,
  modelOptions,
  routeModelOptions,
  type ActivityTimeouts,
} from './activity-options.js';
import type { StepBatches } from './step-batches.js';
import { MAX_WORKER_REFUSALS, modelRefusalOf, waitAfterRefusal } from './worker-refusal.js';
import type { RunConfigPin } from '../../contract/run-config.js';

/**
 * The `callModel` port: one model step activity (`callModelV3` in the third step format on runs with
 * `agent-run-step-format-v3`, `callModelV2` with its batch by header reference on the second
 * baseline, else `callModel`), under the options of the pinned route when the Runner names
 * one, summarised in the history by purpose and call number.
 *
 * A call a worker refused as the run asked (`workerRefusal`: it lacks the pinned route) is scheduled
 * again after a backoff, up to `MAX_WORKER_REFUSALS` times (worker-refusal.ts), then fails as below.
 * Runs with a config pin (`configPin`, sent with every call) are refused by a worker with another
 * configuration too (`worker.config_changed`), and learn how often workers refused the call
 * (`workerRefused` on the decision, or on the error when it failed after refusals).
 *
 * With `fastModel` (runs since `agent-run-fast-model-v1`), a call on a pinned route that declares
 * `fast` (docs/models.md, "Fast model routes") is tried first as a local activity in this workflow
 * task, the same step activity with the same input, one try bounded by the route's `fast.timeoutMs`;
 * when that try fails (its timeout, a worker's refusal, the provider, the store) the call runs at once
 * as the regular activity below, with its retries, refusals and failures (in a cancelled run it ends
 * at once as cancelled), and the try's failure is not reported: usage and cost are counted once, from
 * the answer the call took. Only a refusal the provider billed (`model.blocked`) is not tried again:
 * it fails the call on this route as below, as the regular activity's first attempt would have.
 *
 * Failure semantics: a cancellation rejects as it came; any other failure rejects with an Error
 * whose `code` is the provider's stable type (`ApplicationFailure`), `model.timeout` or
 * `model.failed`, with the provider's billed usage when it reported one (the Runner ends the run with
 * it, unless it takes a fallback of the pinned route). A batch whose header the worker could not
 * restore is sent with its header again next time (see {@link StepBatches}).
 */
export function modelCallPort(
  timeouts: ActivityTimeouts,
  batches: StepBatches,
  configPin?: RunConfigPin,
  fastModel = false,
): RunnerPorts['callModel'] {
  const model = proxyActivities<ModelActivities>(modelOptions(timeouts));
  const local = proxyLocalActivities<ModelActivities>(fastReadOptions(MAX_FAST_TIMEOUT_MS));
  return (call, route) =>
    callPromise(() => {
      // Runs with a config pin send it with every call: a worker with another configuration refuses.
      const input = configPin ? { ...call, configPin } : call;
      const options = route ? routeModelOptions(timeouts, route) : modelOptions(timeouts);
      const on = route ? ` on ${input.modelRoute}` : '';
      const packed = batches.pack(input.events, modelCallDerivation(input));
      const failed = (err: unknown, refused?: { refusals: number; code: string }): never => {
        if (isCancellation(err)) throw err;
        batches.failed(packed.digest, err);
        // A model call that failed for good ends the run with the provider's stable code (unless the
        // runner takes a fallback of its pinned route).
        const cause = causeOf(err);
        const code =
          cause instanceof ApplicationFailure
            ? (cause.type ?? 'model.failed')
            : cause instanceof TimeoutFailure
              ? 'model.timeout'
              : 'model.failed';
        const billed = cause instanceof ApplicationFailure ? billedUsageOf(cause.details?.[0]) : undefined;
        throw Object.assign(
          new Error(`model call #${input.callSeq} failed: ${cause?.message ?? (err as Error).message}`),
          { code, ...(billed ? { billed } : {}), ...(refused ? { workerRefused: refused } : {}) },
        );
      };
      // The fast try (`fastMs`): whatever its failure (its shape differs between a live task and a
      // replay from its marker), the regular activity follows at once; in a cancelled run it ends
      // at once as cancelled. Never rescheduled, never reported: the Runner sees the regular outcome.
      // Except a refusal the provider billed (`model.blocked`, its usage in the details): that is the
      // call's outcome on this route, as the regular activity's would be (a refusal is not retried),
      // counted once; asking the provider again would pay for it twice.
      const fellBack = (err: unknown): Promise<ModelDecision> => {
        const cause = causeOf(err);
        if (cause instanceof ApplicationFailure && billedUsageOf(cause.details?.[0])) return failed(err);
        batches.failed(packed.digest, err);
        return schedule(0);
      };
      const schedule = (refusals: number, lastRefusal?: string, fastMs?: number): Promise<ModelDecision> => {
        let pending: Promise<ModelDecision>;
        try {
          const summary = `model ${input.purpose} #${input.callSeq}${on}`;
          const call =
            fastMs === undefined
              ? { ...options, summary }
              : { ...fastReadOptions(fastMs), summary: `${summary} (fast)` };
          const proxy = (fastMs === undefined ? model : local) as unknown as StepProxies;
          pending = packed.v3
            ? proxy.callModelV3.executeWithOptions(call, [
                compactModelInputV3(
                  { ...input, events: packed.events },
                  workflowInfo().workflowId,
                  packed.run,
                ),
              ])
            : packed.byRef
              ? proxy.callModelV2.executeWithOptions(call, [
                  compactModelInput({ ...input, events: packed.events }, workflowInfo().workflowId),
                ])
              : proxy.callModel.executeWithOptions(call, [{ ...input, events: packed.events }]);
        } catch (err) {
          return fastMs === undefined ? failed(err) : fellBack(err);
        }
        if (fastMs !== undefined)
          return pending.then((decision) => {
            batches.stored(packed.header);
            return decision;
          }, fellBack);
        // One promise and one tick to the Runner (call-promise.ts), as the async form had.
        return pending.then(
          (decision) => {
            batches.stored(packed.header);
            // Runs with a config pin learn how often workers refused the call (model.worker_refused).
            return configPin && lastRefusal !== undefined
              ? { ...decision, workerRefused: { refusals, code: lastRefusal } }
              : decision;
          },
          (err: unknown) => {
            // A worker without the pinned route (or configuration) refused the call: nothing ran; schedule it again.
            const refusal = modelRefusalOf(input, err);
            const seen = configPin && lastRefusal !== undefined ? { refusals, code: lastRefusal } : undefined;
            if (refusal === undefined) return failed(err, seen);
            if (refusals + 1 >= MAX_WORKER_REFUSALS)
              return failed(err, configPin ? { refusals: refusals + 1, code: refusal } : undefined);
            return waitAfterRefusal(refusals + 1).then(
              () => schedule(refusals + 1, refusal),
              (e: unknown) => failed(e),
            );
          },
        );
      };
      return schedule(0, undefined, fastModel ? route?.fast?.timeoutMs : undefined);
    });
}

/**
 * What a failed model activity failed with: an activity's failure is wrapped (`ActivityFailure`), a
 * local activity's arrives wrapped in a live task and as the `ApplicationFailure` itself when replayed
 * from its marker; both give the same cause, so live and replay decide alike.
 */
function causeOf(err: unknown): Error | undefined {
  if (err instanceof ActivityFailure) return err.cause;
  return err instanceof ApplicationFailure ? err : undefined;
}

/** The step activity's two names as the proxies expose them, regular or local. */
interface StepProxies {
  readonly callModel: { executeWithOptions(options: object, args: unknown[]): Promise<ModelDecision> };
  readonly callModelV2: { executeWithOptions(options: object, args: unknown[]): Promise<ModelDecision> };
  readonly callModelV3: { executeWithOptions(options: object, args: unknown[]): Promise<ModelDecision> };
}
