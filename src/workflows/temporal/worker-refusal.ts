import { ActivityFailure, ApplicationFailure, sleep } from '@temporalio/workflow';
import { TOOL_DEFINITION_CHANGED, TOOL_NOT_STARTED } from '../../contract/failure-types.js';
import type { ToolActivityOutcome, ToolCallInput } from '../runner/ports.js';

/**
 * How often a run schedules a tool call again after workers refused it (`worker.tool_definition_changed`)
 * before it gives up: with the backoff below (1 s doubling to 30 s) about 13 minutes, long enough for
 * a rolling deploy's old and new workers to overlap, bounded so the history stays small.
 */
export const MAX_WORKER_REFUSALS = 30;

/** The refusals of a worker without the model call's pinned route (src/activities/resolve-model-route.ts). */
const MODEL_ROUTE_REFUSALS: ReadonlySet<string> = new Set(['model.unknown_route', 'model.route_changed']);

/** Did a worker refuse the model call as the run asked (`ModelCallInput.workerRefusal`)? */
export function isModelRouteRefusal(input: { readonly workerRefusal?: true }, err: unknown): boolean {
  if (input.workerRefusal !== true || !(err instanceof ActivityFailure)) return false;
  const cause = err.cause;
  return cause instanceof ApplicationFailure && MODEL_ROUTE_REFUSALS.has(cause.type ?? '');
}

/** Did a worker refuse the call as the run asked (`ToolCallInput.workerRefusal`)? */
export function isWorkerRefusal(input: ToolCallInput, err: unknown): boolean {
  if (input.workerRefusal !== true || !(err instanceof ActivityFailure)) return false;
  const cause = err.cause;
  return cause instanceof ApplicationFailure && cause.type === TOOL_DEFINITION_CHANGED;
}

/** The Temporal timer before scheduling a refused call again (the `refusals`-th refusal, from 1). */
export function waitAfterRefusal(refusals: number): Promise<void> {
  return sleep(Math.min(30_000, 1000 * 2 ** Math.min(refusals - 1, 5)));
}

/**
 * The outcome of a call workers refused {@link MAX_WORKER_REFUSALS} times: for a write
 * `tool.not_started` (nothing happened; the run may try again or ask a person, as for any write that
 * did not start), for a read a failed call with `worker.tool_definition_changed`.
 */
export function refusedTooOften(input: ToolCallInput, err: ActivityFailure): ToolActivityOutcome {
  const message = err.cause?.message ?? err.message;
  return {
    kind: 'failed',
    code: input.effect === 'write' ? TOOL_NOT_STARTED : TOOL_DEFINITION_CHANGED,
    message: `refused by workers ${MAX_WORKER_REFUSALS} times: ${message}`,
    workerRefusals: MAX_WORKER_REFUSALS,
  };
}
