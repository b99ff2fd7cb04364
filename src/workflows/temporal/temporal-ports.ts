import type { RunConfigPin } from '../../contract/run-config.js';
import {
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { MemoryActivities, RunActivities, ToolActivities } from '../../contract/activity-interfaces.js';
import { packEvents, withPackedEvents } from '../../contract/packed-events.js';
import type { CallDefaults } from '../../contract/packed-events-v3.js';
import { callPromise } from '../runner/call-promise.js';
import type { ToolDefinition } from '../../contract/tool.js';
import type { AgentEvent } from '../../contract/agent-event.js';
import type { RunnerPorts } from '../runner/ports.js';
import type { RunState } from '../runner/run-state.js';
import {
  BOOKKEEPING_OPTIONS,
  LOCAL_BOOKKEEPING_OPTIONS,
  RESOLVE_OPTIONS,
  type ActivityTimeouts,
} from './activity-options.js';
import { DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS } from './carried-run.js';
import { WAIT_HISTORY_BOUND_BYTES } from '../../contract/wait-history-bound.js';
import { modelCallPort } from './model-call-port.js';
import type { RunVisibility } from './run-visibility.js';
import { OPERATOR_RESOLUTION_PATCH, WAIT_HISTORY_BOUND_PATCH, type RunPatches } from './run-patches.js';
import { stepBatches } from './step-batches.js';
import { toolCallPort } from './tool-call-port.js';
import { versionedName } from '../../contract/versioned-name.js';

/**
 * The Temporal implementation of {@link RunnerPorts}: activities, timers, conditions. The step
 * activities are {@link modelCallPort} and {@link toolCallPort}, sharing one execution's
 * {@link stepBatches}.
 *
 * Failure semantics: building the ports never throws and records nothing. Each port fails as its
 * activity or timer does (bookkeeping activities run non-cancellable and reject with the SDK's
 * `ActivityFailure`); the step ports as their own TSDoc says.
 */
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
  /** The execution's patch decisions (run-patches.ts): the ports ask their patches through it. */
  patches: RunPatches,
  /** The lean frame (run-frame.ts): the last flush is shielded only when a cancellation reaches it. */
  leanFrame = false,
  /** The run's config pin (`agent-run-config-pin-v1`): sent with every tool and model call. */
  configPin?: RunConfigPin,
  /**
   * Step activities in the third step format (`agent-run-step-format-v3`, step-batches.ts), with
   * these call defaults in its header; undefined: the second (or first) format.
   */
  stepFormatV3?: CallDefaults,
  /** Model calls on a route declaring `fast` are tried first as local activities (`agent-run-fast-model-v1`). */
  fastModel = false,
): RunnerPorts {
  const run = proxyActivities<RunActivities & ToolActivities>(BOOKKEEPING_OPTIONS);
  const memory = proxyActivities<MemoryActivities>(BOOKKEEPING_OPTIONS);
  const local = proxyLocalActivities<RunActivities>(LOCAL_BOOKKEEPING_OPTIONS);
  const batches = stepBatches(patches.headerByRef, patches.headerByRef ? stepFormatV3 : undefined);

  return {
    tools,
    now: () => new Date().toISOString(), // the workflow clock: deterministic inside the sandbox
    callModel: modelCallPort(timeouts, batches, configPin, fastModel),
    callTool: toolCallPort(timeouts, batches, configPin),
    resolveLostInvocation: (input) =>
      CancellationScope.nonCancellable(() =>
        run.resolveLostInvocation.executeWithOptions(
          {
            ...RESOLVE_OPTIONS,
            summary: `resolve ${versionedName(input.tool, input.version)} #${input.seq}`,
          },
          [withPackedEvents(input)],
        ),
      ),
    operatorResolutionRecorder() {
      if (!patches.on(OPERATOR_RESOLUTION_PATCH)) return undefined;
      return (input) =>
        CancellationScope.nonCancellable(() =>
          run.recordOperatorResolution.executeWithOptions(
            {
              ...RESOLVE_OPTIONS,
              summary: `record ${input.outcome} by ${input.actor} for ${versionedName(input.call.tool, input.call.version)} #${input.call.seq}`,
            },
            [{ ...input, call: withPackedEvents(input.call) }],
          ),
        );
    },
    memory: () => ({
      recall: (scope, now, limit) => memory.recallMemory({ scope, now, limit }),
      write: (entry) => memory.writeMemory(entry),
    }),
    flushEvents(events: readonly AgentEvent[], options?: { readonly last?: boolean }): Promise<void> {
      if (events.length === 0) return Promise.resolve();
      // Only the last flush of an execution is local: after a local activity nothing asks a patch.
      const recordEvents = localBookkeeping && options?.last ? local.recordEvents : run.recordEvents;
      if (leanFrame && options?.last) return lastFlush(() => recordEvents(packEvents(events)));
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

/**
 * The lean frame's last flush (run-frame.ts): called outside the run's scope, where only a Temporal
 * cancellation request can cancel it, so it runs without a scope of its own; if a cancellation does
 * reach it (before or while it runs), the events are stored again in a non-cancellable scope (stored
 * exactly once: unique by run and sequence). Failure semantics: as the activity's, else none.
 */
function lastFlush(record: () => Promise<unknown>): Promise<void> {
  return callPromise(record).then(
    () => undefined,
    (err: unknown) =>
      isCancellation(err)
        ? CancellationScope.nonCancellable(record).then(() => undefined)
        : // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the activity's failure as it came
          Promise.reject(err),
  );
}

/** Elapsed milliseconds since the run (first generation) started, from the workflow clock. Never throws. */
export function elapsedSince(startedAt: string): number {
  return Date.now() - Date.parse(startedAt);
}
