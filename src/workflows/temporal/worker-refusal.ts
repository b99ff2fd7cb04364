import { ActivityFailure, ApplicationFailure, sleep } from '@temporalio/workflow';
import { CONFIG_CHANGED, TOOL_DEFINITION_CHANGED, TOOL_NOT_STARTED } from '../../contract/failure-types.js';
import type { RunConfigPin } from '../../contract/run-config.js';
import type { ToolActivityOutcome, ToolCallInput } from '../runner/ports.js';

/**
 * How often a run schedules a tool call again after workers refused it (`worker.tool_definition_changed`)
 * before it gives up: with the backoff below (1 s doubling to 30 s) about 13 minutes, long enough for
 * a rolling deploy's old and new workers to overlap, bounded so the history stays small.
 */
export const MAX_WORKER_REFUSALS = 30;

/** The refusals of a worker without the model call's pinned route (src/activities/resolve-model-route.ts). */
const MODEL_ROUTE_REFUSALS: ReadonlySet<string> = new Set(['model.unknown_route', 'model.route_changed']);

/** The refusal of a worker with another definition of the pinned tool (src/activities/tool-attempt.ts). */
const TOOL_REFUSALS: ReadonlySet<string> = new Set([TOOL_DEFINITION_CHANGED]);

/** What a call asks of workers that cannot serve it as pinned. */
interface RefusalAsked {
  readonly workerRefusal?: true;
  readonly configPin?: RunConfigPin;
}

/** The type of a refusal `err` is, when the call asked for it; undefined for any other failure. */
function refusalType(input: RefusalAsked, err: unknown, own: ReadonlySet<string>): string | undefined {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure)) return undefined;
  const type = err.cause.type ?? '';
  if (input.workerRefusal === true && own.has(type)) return type;
  // A config pin's refusal (runs since agent-run-config-pin-v1, which also have workerRefusal).
  if (input.configPin !== undefined && type === CONFIG_CHANGED) return type;
  return undefined;
}

/**
 * The refusal type when a worker refused the model call as the run asked (`ModelCallInput.workerRefusal`:
 * the pinned route; `configPin`: the run's configuration), else undefined.
 */
export function modelRefusalOf(input: RefusalAsked, err: unknown): string | undefined {
  return refusalType(input, err, MODEL_ROUTE_REFUSALS);
}

/** Did a worker refuse the call as the run asked (`ToolCallInput.workerRefusal`, `configPin`)? */
export function isWorkerRefusal(input: ToolCallInput, err: unknown): boolean {
  return refusalType(input, err, TOOL_REFUSALS) !== undefined;
}

/** The type of a refused call's failure (an `ActivityFailure` whose cause is an `ApplicationFailure`). */
export function refusalTypeOf(err: unknown): string | undefined {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure
    ? (err.cause.type ?? undefined)
    : undefined;
}

/** The Temporal timer before scheduling a refused call again (the `refusals`-th refusal, from 1). */
export function waitAfterRefusal(refusals: number): Promise<void> {
  return sleep(Math.min(30_000, 1000 * 2 ** Math.min(refusals - 1, 5)));
}

/**
 * The outcome of a call workers refused {@link MAX_WORKER_REFUSALS} times: for a write
 * `tool.not_started` (nothing happened; the run may try again or ask a person, as for any write that
 * did not start), for a read a failed call with the refusal's type (`worker.tool_definition_changed`,
 * or `worker.config_changed` in runs with a config pin).
 */
export function refusedTooOften(input: ToolCallInput, err: ActivityFailure): ToolActivityOutcome {
  const message = err.cause?.message ?? err.message;
  const type =
    (err.cause instanceof ApplicationFailure ? err.cause.type : undefined) ?? TOOL_DEFINITION_CHANGED;
  return {
    kind: 'failed',
    code: input.effect === 'write' ? TOOL_NOT_STARTED : type,
    message: `refused by workers ${MAX_WORKER_REFUSALS} times: ${message}`,
    workerRefusals: MAX_WORKER_REFUSALS,
    // Runs with a config pin say which refusal it was (older runs had one kind only).
    ...(input.configPin !== undefined ? { refusedWith: type } : {}),
  };
}
