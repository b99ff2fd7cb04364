import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  MemoryActivities,
  ModelActivities,
  RunActivities,
  ToolActivities,
} from '../../contract/activity-interfaces.js';
import { TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN } from '../../contract/failure-types.js';
import {
  packEvents,
  withPackedEvents,
  type PackedEvents,
  type RunHeader,
} from '../../contract/packed-events.js';
import {
  headerDigestOfText,
  modelCallDerivation,
  packEventsByRef,
  toolCallDerivation,
  type EventDerivation,
  type PackedEventsByRef,
} from '../../contract/packed-events-by-ref.js';
import { canonicalJson } from '../../contract/canonical-json.js';
import { callPromise } from '../runner/call-promise.js';
import { compactModelInput, compactToolInput } from '../../contract/compact-step-input.js';
import { argsDigestOf } from '../runner/tool-pipeline.js';
import type { ToolDefinition } from '../../contract/tool.js';
import type { AgentEvent } from '../../contract/agent-event.js';
import type {
  ModelDecision,
  RunnerPorts,
  ToolActivityOutcome,
  ToolCallInput,
  ToolCallResult,
} from '../runner/ports.js';
import type { RunState } from '../runner/run-state.js';
import {
  BOOKKEEPING_OPTIONS,
  LOCAL_BOOKKEEPING_OPTIONS,
  RESOLVE_OPTIONS,
  modelOptions,
  readToolOptions,
  routeModelOptions,
  writeToolOptions,
  type ActivityTimeouts,
} from './activity-options.js';
import { DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS } from './carried-run.js';
import { billedUsageOf } from '../runner/model-routing.js';
import { WAIT_HISTORY_BOUND_BYTES } from '../../contract/wait-history-bound.js';
import type { RunVisibility } from './run-visibility.js';
import {
  BOUNDED_VALUES_PATCH,
  DATA_TAINT_PATCH,
  OPERATOR_RESOLUTION_PATCH,
  WAIT_HISTORY_BOUND_PATCH,
  WRITE_EXHAUSTION_PATCH,
  WRITE_RECOVERY_PATCH,
  type RunPatches,
} from './run-patches.js';

/**
 * Turn a failed tool activity into what the runner understands. With `unregisteredNotStarted` (runs
 * on the second baseline), a task no worker had the activity for (`NotFoundError`: a worker of an
 * older release during a rolling deploy) is `tool.not_started`: nothing ran, and a write may be tried
 * again under write recovery.
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

/** The Temporal implementation of {@link RunnerPorts}: activities, timers, conditions. */
export function createTemporalPorts(
  tools: readonly ToolDefinition[],
  timeouts: ActivityTimeouts,
  visibility: RunVisibility,
  continueAsNew: {
    readonly enabled: boolean;
    readonly afterEvents: number;
    /** History bytes at which a waiting run moves to a new history (see WAIT_HISTORY_BOUND_BYTES). */
    readonly waitBoundBytes?: number;
  } = {
    enabled: false,
    afterEvents: DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS,
  },
  /** The last event flush runs as a local activity (decided once per run by the workflow, behind a patch). */
  localBookkeeping = false,
  /** The answer to `graphNodeChecks` (decided once per run at its start, behind a patch). */
  graphNodeChecks = false,
  /** The execution's patch decisions (run-patches.ts): the ports ask their patches through it. */
  patches: RunPatches,
): RunnerPorts {
  const write = proxyActivities<ToolActivities>(writeToolOptions(timeouts));
  const read = proxyActivities<ToolActivities>(readToolOptions(timeouts));
  const model = proxyActivities<ModelActivities>(modelOptions(timeouts));
  const run = proxyActivities<RunActivities & ToolActivities>(BOOKKEEPING_OPTIONS);
  const memory = proxyActivities<MemoryActivities>(BOOKKEEPING_OPTIONS);
  const local = proxyLocalActivities<RunActivities>(LOCAL_BOOKKEEPING_OPTIONS);
  const batches = stepBatches(patches.headerByRef);

  return {
    tools,
    now: () => new Date().toISOString(), // the workflow clock: deterministic inside the sandbox
    callModel(input, route) {
      return callPromise(() => {
        const options = route ? routeModelOptions(timeouts, route) : modelOptions(timeouts);
        const on = route ? ` on ${input.modelRoute}` : '';
        const packed = batches.pack(input.events, modelCallDerivation(input));
        const failed = (err: unknown): never => {
          if (isCancellation(err)) throw err;
          batches.failed(packed.digest, err);
          // A model call that failed for good ends the run with the provider's stable code (unless the
          // runner takes a fallback of its pinned route).
          const cause = err instanceof ActivityFailure ? err.cause : undefined;
          const code =
            cause instanceof ApplicationFailure
              ? (cause.type ?? 'model.failed')
              : cause instanceof TimeoutFailure
                ? 'model.timeout'
                : 'model.failed';
          const billed = cause instanceof ApplicationFailure ? billedUsageOf(cause.details?.[0]) : undefined;
          throw Object.assign(
            new Error(`model call #${input.callSeq} failed: ${cause?.message ?? (err as Error).message}`),
            { code, ...(billed ? { billed } : {}) },
          );
        };
        let pending: Promise<ModelDecision>;
        try {
          const call = { ...options, summary: `model ${input.purpose} #${input.callSeq}${on}` };
          pending = packed.byRef
            ? model.callModelV2.executeWithOptions(call, [
                compactModelInput({ ...input, events: packed.events }, workflowInfo().workflowId),
              ])
            : model.callModel.executeWithOptions(call, [{ ...input, events: packed.events }]);
        } catch (err) {
          return failed(err);
        }
        // One promise and one tick to the Runner (call-promise.ts), as the async form had.
        return pending.then((decision) => {
          batches.stored(packed.header);
          return decision;
        }, failed);
      });
    },
    callTool(input: ToolCallInput, { summary }): Promise<ToolActivityOutcome> {
      return callPromise(() => {
        const act = input.effect === 'write' ? write : read;
        const options = input.effect === 'write' ? writeToolOptions(timeouts) : readToolOptions(timeouts);
        const packed = batches.pack(input.events, toolCallDerivation(input));
        const failed = (err: unknown): ToolActivityOutcome => {
          batches.failed(packed.digest, err);
          return classifyToolFailure(err, packed.byRef);
        };
        let pending: Promise<ToolCallResult>;
        try {
          const call = { ...options, summary };
          pending = packed.byRef
            ? act.runToolV2.executeWithOptions(call, [
                compactToolInput(
                  { ...input, events: packed.events },
                  workflowInfo().workflowId,
                  argsDigestOf,
                ),
              ])
            : act.runTool.executeWithOptions(call, [{ ...input, events: packed.events }]);
        } catch (err) {
          return Promise.resolve(failed(err));
        }
        return pending.then((result): ToolActivityOutcome => {
          batches.stored(packed.header);
          return { kind: 'completed', result };
        }, failed);
      });
    },
    resolveLostInvocation: (input) =>
      CancellationScope.nonCancellable(() =>
        run.resolveLostInvocation.executeWithOptions(
          { ...RESOLVE_OPTIONS, summary: `resolve ${input.tool}@${input.version} #${input.seq}` },
          [withPackedEvents(input)],
        ),
      ),
    writeRecovery: () => patches.on(WRITE_RECOVERY_PATCH),
    boundedValues: () => patches.on(BOUNDED_VALUES_PATCH),
    graphNodeChecks: () => graphNodeChecks,
    writeExhaustionToPerson: () => patches.on(WRITE_EXHAUSTION_PATCH),
    operatorResolutionRecorder() {
      if (!patches.on(OPERATOR_RESOLUTION_PATCH)) return undefined;
      return (input) =>
        CancellationScope.nonCancellable(() =>
          run.recordOperatorResolution.executeWithOptions(
            {
              ...RESOLVE_OPTIONS,
              summary: `record ${input.outcome} by ${input.actor} for ${input.call.tool}@${input.call.version} #${input.call.seq}`,
            },
            [{ ...input, call: withPackedEvents(input.call) }],
          ),
        );
    },
    dataTaint: () => patches.on(DATA_TAINT_PATCH),
    memory: () => ({
      recall: (scope, now, limit) => memory.recallMemory({ scope, now, limit }),
      write: (entry) => memory.writeMemory(entry),
    }),
    flushEvents(events: readonly AgentEvent[], options?: { readonly last?: boolean }): Promise<void> {
      if (events.length === 0) return Promise.resolve();
      // Only the last flush of an execution is local: after a local activity nothing asks a patch.
      const recordEvents = localBookkeeping && options?.last ? local.recordEvents : run.recordEvents;
      // Its own tick after the activity's promise (call-promise.ts), not one inside the SDK's scope.
      return callPromise(() => CancellationScope.nonCancellable(() => recordEvents(packEvents(events)))).then(
        () => undefined,
      );
    },
    async waitUntil(ready: () => boolean, timeoutMs?: number): Promise<boolean> {
      if (timeoutMs === undefined) {
        await condition(ready);
        return true;
      }
      return condition(ready, timeoutMs);
    },
    sleep: (ms) => sleep(ms),
    publish: (state: RunState) => visibility.publish(state),
    shouldContinueAsNew(): boolean {
      if (!continueAsNew.enabled) return false;
      const info = workflowInfo();
      return info.continueAsNewSuggested || info.historyLength >= continueAsNew.afterEvents;
    },
    historyOverWaitBound(): number | undefined {
      if (!continueAsNew.enabled) return undefined;
      // The size of the history as of this workflow task (recorded, so it replays the same).
      const size = workflowInfo().historySize;
      const bound = continueAsNew.waitBoundBytes ?? WAIT_HISTORY_BOUND_BYTES;
      return size >= bound && patches.on(WAIT_HISTORY_BOUND_PATCH) ? size : undefined;
    },
  };
}

/** A step's batch in the form its activity takes (the first, or by header reference). */
type PackedBatch =
  | {
      readonly byRef: false;
      readonly events: PackedEvents;
      readonly digest: undefined;
      readonly header: undefined;
    }
  | {
      readonly byRef: true;
      readonly events: PackedEventsByRef;
      readonly digest: string | undefined;
      readonly header: string | undefined;
    };

/**
 * How one execution packs the outbox batches of its step activities. On the second baseline a batch
 * names its header by reference and carries it only until an activity that carried it has completed
 * (its worker stored the header before the events: src/activities/run-header.ts). The set of stored headers
 * lives in this execution's memory only: it follows from the activity completions in the history, so
 * it replays the same, and a new execution (continue-as-new) sends its header once again.
 */
export function stepBatches(byRef: boolean) {
  const stored = new Set<string>();
  const digests = new Map<string, string>();
  const digestOf = (run: RunHeader): string => {
    const text = canonicalJson(run);
    let digest = digests.get(text);
    if (digest === undefined) digests.set(text, (digest = headerDigestOfText(text)));
    return digest;
  };
  return {
    /**
     * The batch as the activity takes it; `derive` is what the activity rebuilds from its input.
     * `digest`: the header the batch names; `header`: the same when the batch carries it.
     */
    pack(events: readonly AgentEvent[], derive: EventDerivation): PackedBatch {
      if (!byRef) return { byRef: false, events: packEvents(events), digest: undefined, header: undefined };
      const packed = packEventsByRef(events, { digestOf, stored: (d) => stored.has(d), derive });
      const digest = packed.header === '' ? undefined : packed.header;
      return { byRef: true, events: packed, digest, header: packed.run ? digest : undefined };
    },
    /** The activity that carried `header` completed: later batches may name it alone. */
    stored(header: string | undefined): void {
      if (header !== undefined) stored.add(header);
    },
    /**
     * The activity failed. When its worker could not restore the header it named (the store does not
     * hold it, e.g. restored from an older backup), the next batches carry it again, so the run heals
     * instead of failing every later step. Payloads only: the commands are the same either way.
     */
    failed(digest: string | undefined, err: unknown): void {
      const cause = err instanceof ActivityFailure ? err.cause : undefined;
      const type = cause instanceof ApplicationFailure ? cause.type : undefined;
      if (digest !== undefined && type?.startsWith('events.header_') === true) stored.delete(digest);
    },
  };
}

/** Elapsed milliseconds since the run (first generation) started, from the workflow clock. */
export function elapsedSince(startedAt: string): number {
  return Date.now() - Date.parse(startedAt);
}
