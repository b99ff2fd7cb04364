import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  setWorkflowOptions,
  workflowInfo,
} from '@temporalio/workflow';
import { isTerminal } from '../../contract/statuses.js';
import { ContinueAsNewRequested } from '../runner/continue-as-new.js';
import type { RunState } from '../runner/run-state.js';
import {
  registerAgentRun,
  type AgentRunComposition,
  type AgentRunDefinition,
} from './agent-run-definition.js';
import { sealCarried } from './carried-origin.js';
import type { CarriedRun } from './carried-run.js';
import { nextGeneration } from './next-generation.js';
import { setRunHandlers } from './run-handlers.js';
import { executeInScope, finishFrame, flushBeforeContinue, startDeadline } from './run-frame.js';
import { BOUNDED_CARRY_PATCH, RunPatches } from './run-patches.js';
import { admitRun, pinRun } from './run-start.js';
import { startRunner } from './start-runner.js';
import { elapsedSince } from './temporal-ports.js';
import { requestToolSnapshot } from './tool-snapshot.js';

export {
  approveSignal,
  cancelRunSignal,
  provideInputSignal,
  reconcileSignal,
  rejectSignal,
  stateQuery,
} from './run-handlers.js';

/** What an `agentRun` workflow returns: its terminal status and output (business outcome, not an error). */
export interface AgentRunResult {
  readonly runId: string;
  readonly status: RunState['status'];
  readonly output: unknown;
  readonly terminalReason: RunState['terminalReason'];
  readonly versions: RunState['versions'];
  readonly artifactIds: string[];
}

/** The workflow function {@link defineAgentRun} returns: export it as `agentRun` from your workflows file. */
export type AgentRunWorkflow = (rawInput: unknown, carried?: CarriedRun) => Promise<AgentRunResult>;

/**
 * The `agentRun` workflow for an app's trusted composition: the profiles and policies runs may name and
 * the completion evaluators beyond the defaults. Call it once in the app's workflows file (the worker's
 * `workflowsPath`) and export the result as `agentRun`:
 *
 * ```ts
 * export const agentRun = defineAgentRun({ profiles: [myProfile], policies: [myPolicy] });
 * ```
 *
 * One agent run is a deterministic workflow holding the Runner state machine. Model calls and tools run
 * as activities; approvals, reconciliation, input and cancellation arrive as signals; the `state`
 * query, search attributes and current details show where it is.
 *
 * Failure semantics: a definition that does not compose (two profiles with the same name and version,
 * a completion contract naming an unknown evaluator) stops the worker process (`harness worker`) and
 * `harness start` before anything starts (`composeAgentRun`). A run checks only its own profile (the
 * sandbox evaluates the app for every run): a bad one throws in the first workflow task, which fails
 * and is retried (the run does nothing until a worker with a good definition takes it). Invalid input,
 * an unknown profile or policy, a policy the profile does not list
 * (`run.policy_not_allowed`) fail the workflow at once (non-retryable), as does a legacy
 * whole-registry pin the worker does not match (`run.registry_mismatch`). A worker that cannot serve
 * the run's pinned tools fails the workflow task (`worker.tools_unavailable`), never the run.
 * Everything after the start ends in a typed run status returned as the result.
 */
export function defineAgentRun(definition: AgentRunDefinition): AgentRunWorkflow {
  let composed: AgentRunComposition | undefined;
  const agentRun: AgentRunWorkflow = (rawInput, carried) =>
    runAgent((composed ??= registerAgentRun(definition)), rawInput, carried);
  setWorkflowOptions({ failureExceptionTypes: [TypeError, ReferenceError, RangeError] }, agentRun);
  return agentRun;
}

async function runAgent(
  composition: AgentRunComposition,
  rawInput: unknown,
  carried: CarriedRun | undefined,
): Promise<AgentRunResult> {
  // First of all: the baseline marker, if the run records one, is the first command of a new execution (run-patches.ts).
  const runPatches = RunPatches.decide();
  const admitted = admitRun(composition, rawInput, carried, runPatches);
  const { input, profile, limits } = admitted;
  const load = requestToolSnapshot(runPatches, input, profile, carried, admitted.slots);
  const snapshot = await load.snapshot;
  const pinned = pinRun(admitted, carried, snapshot, runPatches, load.patches);
  const { info, runId, modelRoutes, bundles, state } = pinned;
  let deadlineReached = false;
  const { runner, ports, identity, subject, authority } = startRunner({
    composition,
    admitted,
    pinned,
    rawInput,
    carried,
    snapshot,
    local: load.local,
    runPatches,
    deadlineReached: () => deadlineReached,
  });

  const scope = new CancellationScope();
  setRunHandlers({ runner, scope, state, subject, authority, firstExecutionRunId: info.firstExecutionRunId });

  // A cancellation accepted while the previous generation was moving to this one.
  if (runner.gate.cancelRequest) scope.cancel();

  const frame = { lean: pinned.patches.leanFrame, runner, ports, scope, runPatches, limits };
  const deadlineMs = Math.max(0, limits.deadlineSeconds * 1000 - elapsedSince(state.startedAt));
  startDeadline(frame, deadlineMs, () => (deadlineReached = true));

  try {
    await executeInScope(frame, (flush) => runner.execute(profile, flush));
  } catch (err) {
    if (err instanceof ContinueAsNewRequested) {
      // Asked before the last flush: a patch asked after a local activity is fragile on replay.
      const bounded = runPatches.on(BOUNDED_CARRY_PATCH);
      // Between steps, nothing pending: store the outbox, let handlers finish, carry compact state.
      await flushBeforeContinue(frame);
      await condition(allHandlersFinished);
      const { configPin } = pinned;
      const next = nextGeneration({
        runner,
        state,
        bounded,
        authority,
        identity,
        modelRoutes,
        bundles,
        configPin,
      });
      // Bound to this generation (input data, no command): the next one takes it only from here.
      await continueAsNew<AgentRunWorkflow>(input, sealCarried(next, workflowInfo()));
    }
    if (!isCancellation(err)) throw err;
  }
  await finishFrame(frame, isTerminal(state.status));
  return {
    runId,
    status: state.status,
    output: state.output,
    terminalReason: state.terminalReason,
    versions: state.versions,
    artifactIds: state.artifacts.map((a) => a.id),
  };
}
