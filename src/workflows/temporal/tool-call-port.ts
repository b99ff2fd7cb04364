import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { ToolActivities } from '../../contract/activity-interfaces.js';
import { compactToolInput } from '../../contract/compact-step-input.js';
import { compactToolInputV3 } from '../../contract/compact-step-input-v3.js';
import { toolCallDerivationV3 } from '../../contract/packed-events-v3.js';
import { TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN } from '../../contract/failure-types.js';
import { toolCallDerivation } from '../../contract/packed-events-by-ref.js';
import { callPromise } from '../runner/call-promise.js';
import type { RunnerPorts, ToolActivityOutcome, ToolCallInput, ToolCallResult } from '../runner/ports.js';
import { argsDigestOf } from '../runner/args-digest.js';
import { MAX_FAST_TIMEOUT_MS } from '../../contract/tool.js';
import {
  fastReadOptions,
  readToolOptions,
  writeToolOptions,
  type ActivityTimeouts,
} from './activity-options.js';
import type { StepBatches } from './step-batches.js';
import {
  isWorkerRefusal,
  MAX_WORKER_REFUSALS,
  refusalTypeOf,
  refusedTooOften,
  waitAfterRefusal,
} from './worker-refusal.js';
import type { RunConfigPin } from '../../contract/run-config.js';

/**
 * Turn a failed tool activity into what the runner understands. With `unregisteredNotStarted` (runs
 * on the second baseline), a task no worker had the activity for (`NotFoundError`: a worker of an
 * older release during a rolling deploy) is `tool.not_started`: nothing ran, and a write may be tried
 * again under write recovery.
 * @throws the error itself when it is neither a cancellation nor an `ActivityFailure`.
 */
export function classifyToolFailure(err: unknown, unregisteredNotStarted = false): ToolActivityOutcome {
  if (isCancellation(err)) return { kind: 'cancelled' };
  if (err instanceof ActivityFailure) {
    const cause = err.cause;
    if (cause instanceof TimeoutFailure)
      return { kind: 'lost', message: `activity timed out (${cause.timeoutType})` };
    if (cause instanceof ApplicationFailure) {
      if (cause.type === TOOL_OUTCOME_UNKNOWN) return { kind: 'lost', message: cause.message };
      if (unregisteredNotStarted && cause.type === 'NotFoundError')
        return { kind: 'failed', code: TOOL_NOT_STARTED, message: cause.message };
      return { kind: 'failed', code: cause.type ?? 'tool.failed', message: cause.message };
    }
    return { kind: 'failed', code: 'tool.failed', message: cause?.message ?? err.message };
  }
  throw err;
}

/**
 * The `callTool` port: one tool step activity (`runToolV3` in the third step format on runs with
 * `agent-run-step-format-v3`, `runToolV2` with its batch by header reference on the second baseline,
 * else `runTool`), under the write or read options by the call's effect. A fast read
 * (`fastMs`, docs/runner.md "Fast path") runs first as a local activity in this workflow task, one try
 * bounded by `fastMs`; when that try fails for any reason (its timeout, a thrown error) the same call
 * runs as the regular read activity, with its retries (in a cancelled run that ends as `cancelled`).
 *
 * A call a worker refused as the run asked (`workerRefusal`: another definition of the pinned tool)
 * is scheduled again after a backoff, for another worker to take, up to {@link MAX_WORKER_REFUSALS}
 * times (worker-refusal.ts); the outcome says how often (`workerRefusals`) and, in runs with a config
 * pin (`configPin`, sent with every call; a worker with another configuration refuses with
 * `worker.config_changed`), the last refusal's type (`refusedWith`). A fast read's local try is
 * never rescheduled: it falls back to the regular activity.
 *
 * Failure semantics: never rejects for a failed activity; it resolves to the outcome the Runner
 * understands ({@link classifyToolFailure}: `cancelled`, `lost`, `failed`). A failure that is not an
 * activity's (thrown by the SDK itself) rejects as it came. A batch whose header the worker could not
 * restore is sent with its header again next time (see {@link StepBatches}).
 */
export function toolCallPort(
  timeouts: ActivityTimeouts,
  batches: StepBatches,
  configPin?: RunConfigPin,
): RunnerPorts['callTool'] {
  const write = proxyActivities<ToolActivities>(writeToolOptions(timeouts));
  const read = proxyActivities<ToolActivities>(readToolOptions(timeouts));
  const local = proxyLocalActivities<ToolActivities>(fastReadOptions(MAX_FAST_TIMEOUT_MS));
  /** One try of `act`; `settle` turns its failure into what the caller gets. */
  const attempt = (
    act: ToolActivities,
    options: object,
    input: ToolCallInput,
    settle: (err: unknown, byRef: boolean) => Promise<ToolActivityOutcome>,
    refusable = true,
  ): Promise<ToolActivityOutcome> =>
    callPromise(() => {
      const derive = batches.v3 ? toolCallDerivationV3(input) : toolCallDerivation(input);
      const packed = batches.pack(input.events, derive);
      const failed = (err: unknown): Promise<ToolActivityOutcome> => {
        batches.failed(packed.digest, err);
        return settle(err, packed.byRef);
      };
      // A worker that cannot serve the call as pinned refused it (never a local try: that falls
      // back to the regular activity, whose refusal a worker of the pinned build answers).
      const schedule = (refusals: number, refusedWith?: string): Promise<ToolActivityOutcome> => {
        let pending: Promise<ToolCallResult>;
        try {
          const proxy = act as unknown as ExecuteWithOptions;
          const workflowId = workflowInfo().workflowId;
          pending = packed.v3
            ? proxy.runToolV3.executeWithOptions(options, [
                compactToolInputV3({ ...input, events: packed.events }, workflowId, argsDigestOf, packed.run),
              ])
            : packed.byRef
              ? proxy.runToolV2.executeWithOptions(options, [
                  compactToolInput({ ...input, events: packed.events }, workflowId, argsDigestOf),
                ])
              : proxy.runTool.executeWithOptions(options, [{ ...input, events: packed.events }]);
        } catch (err) {
          return failed(err);
        }
        return pending.then(
          (result): ToolActivityOutcome => {
            batches.stored(packed.header);
            return {
              kind: 'completed',
              result,
              ...(refusals > 0 ? { workerRefusals: refusals } : {}),
              ...(refusedWith !== undefined ? { refusedWith } : {}),
            };
          },
          (err: unknown) => {
            if (!refusable || !isWorkerRefusal(input, err)) return failed(err);
            if (refusals + 1 >= MAX_WORKER_REFUSALS) return refusedTooOften(input, err as ActivityFailure);
            // Runs with a config pin say which refusal it was (older runs had one kind only).
            const type = input.configPin !== undefined ? refusalTypeOf(err) : undefined;
            return waitAfterRefusal(refusals + 1).then(() => schedule(refusals + 1, type), failed);
          },
        );
      };
      return schedule(0);
    });
  const classified = (err: unknown, byRef: boolean) => Promise.resolve(classifyToolFailure(err, byRef));
  return (call: ToolCallInput, { summary, fastMs }): Promise<ToolActivityOutcome> => {
    // Runs with a config pin send it with every call: a worker with another configuration refuses.
    const input = configPin ? { ...call, configPin } : call;
    if (input.effect === 'write')
      return attempt(write, { ...writeToolOptions(timeouts), summary }, input, classified);
    const regular = (): Promise<ToolActivityOutcome> =>
      attempt(read, { ...readToolOptions(timeouts), summary }, input, classified);
    if (fastMs === undefined) return regular();
    // Whatever the fast try's failure (its shape differs between a live task and a replay from its
    // marker), the regular activity follows; in a cancelled run it ends at once as cancelled.
    return attempt(
      local,
      { ...fastReadOptions(fastMs), summary: `${summary} (fast)` },
      input,
      regular,
      false,
    );
  };
}

/** The step names as the proxies expose them, regular or local. */
interface ExecuteWithOptions {
  readonly runToolV3: { executeWithOptions(options: object, args: unknown[]): Promise<ToolCallResult> };
  readonly runTool: { executeWithOptions(options: object, args: unknown[]): Promise<ToolCallResult> };
  readonly runToolV2: { executeWithOptions(options: object, args: unknown[]): Promise<ToolCallResult> };
}
