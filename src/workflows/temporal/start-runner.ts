import { CancellationScope, isCancellation, proxyLocalActivities } from '@temporalio/workflow';
import type { RunActivities, ToolSnapshot } from '../../contract/activity-interfaces.js';
import type { DecisionAuthority } from '../authz/decision-authority.js';
import type { RunIdentity } from '../authz/start-token.js';
import { createInputGuardrail, createOutputGuardrail } from '../guardrails/index.js';
import type { PolicySubject } from '../policy/policy.js';
import type { RunnerPorts } from '../runner/ports.js';
import { Runner } from '../runner/runner.js';
import { DEFAULT_TIMEOUTS, LOCAL_BOOKKEEPING_OPTIONS } from './activity-options.js';
import type { AgentRunComposition } from './agent-run-definition.js';
import { DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS, type CarriedRun } from './carried-run.js';
import { establishRunAuthority } from './run-authority.js';
import { checkedEvents, checkedWait, checkedFactVersions } from './run-checks.js';
import { type RunPatches } from './run-patches.js';
import type { AdmittedRun, PinnedRun } from './run-start.js';
import { temporalRunFeatures } from './run-features.js';
import { runTraceId } from './run-trace-context.js';
import { RunVisibility } from './run-visibility.js';
import { createTemporalPorts } from './temporal-ports.js';
import type { CallDefaults } from '../../contract/packed-events-v3.js';
import { versionedName } from '../../contract/versioned-name.js';
import { definitionDigest } from '../../registry/sandbox.js';

const localBookkeeping = proxyLocalActivities<RunActivities>(LOCAL_BOOKKEEPING_OPTIONS);

/** What a generation starts its Runner from: what {@link admitRun} and {@link pinRun} settled. */
export interface RunnerStart {
  readonly composition: AgentRunComposition;
  readonly admitted: AdmittedRun;
  readonly pinned: PinnedRun;
  readonly rawInput: unknown;
  readonly carried: CarriedRun | undefined;
  readonly snapshot: ToolSnapshot;
  /** The last event flush runs as a local activity (the local bookkeeping patch). */
  readonly local: boolean;
  readonly runPatches: RunPatches;
  /** Whether the run's deadline has passed (read by the Runner). */
  readonly deadlineReached: () => boolean;
}

/** A generation's Runner and what the workflow still needs of its start. */
export interface StartedRunner {
  readonly runner: Runner;
  readonly ports: RunnerPorts;
  readonly identity: RunIdentity | undefined;
  readonly subject: PolicySubject;
  readonly authority: DecisionAuthority | undefined;
}

/**
 * What every step input of the generation repeats, for the third step format's header
 * (packed-events-v3.ts): the run's config pin, and its tools' pinned definition digests when its
 * calls carry them (`toolDefinitionPin`). Undefined without the third format.
 */
function callDefaultsOf(o: RunnerStart): CallDefaults | undefined {
  const { patches, configPin } = o.pinned;
  if (!patches.stepFormatV3) return undefined;
  const defs = o.snapshot.definitions;
  const tools = () =>
    Object.fromEntries(defs.map((d) => [versionedName(d.name, d.version), definitionDigest(d)]));
  return {
    ...(configPin ? { configPin } : {}),
    ...(patches.toolDefinitionPin && defs.length > 0 ? { tools: tools() } : {}),
  };
}

/** The Temporal ports of a generation: its activity timeouts, visibility and continue-as-new bounds. */
function startPorts(o: RunnerStart): RunnerPorts {
  const { input } = o.admitted;
  const { patches } = o.pinned;
  const visibility = new RunVisibility({ publishQueued: !o.runPatches.baseline });
  const t = input.activityTimeouts;
  const timeouts = {
    writeHeartbeatSeconds: t?.writeHeartbeatSeconds ?? DEFAULT_TIMEOUTS.writeHeartbeatSeconds,
    readHeartbeatSeconds: t?.readHeartbeatSeconds ?? DEFAULT_TIMEOUTS.readHeartbeatSeconds,
    modelHeartbeatSeconds: t?.modelHeartbeatSeconds ?? DEFAULT_TIMEOUTS.modelHeartbeatSeconds,
  };
  return createTemporalPorts(
    o.snapshot.definitions,
    timeouts,
    visibility,
    {
      // Decided once at the start (a one-off marker), so histories from before it replay unchanged.
      enabled: patches.continueAsNew,
      afterEvents: input.continueAsNewAfterEvents ?? DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS,
      ...(input.waitHistoryBoundBytes !== undefined ? { waitBoundBytes: input.waitHistoryBoundBytes } : {}),
    },
    o.local,
    o.runPatches,
    patches.leanFrame,
    o.pinned.configPin,
    callDefaultsOf(o),
    patches.fastModel,
  );
}

/**
 * Build a generation's Runner: its Temporal ports, who it runs for and who may decide, its options
 * (each later patch asked through a callback, only where the Runner needs the answer), and the events
 * the previous generation recorded after its last flush, queued again. Schedules nothing.
 * @throws ApplicationFailure (non-retryable) as {@link establishRunAuthority} does, and
 *   `run.state_invalid` for a carried wait or carried events that are not well-formed.
 */
export function startRunner(o: RunnerStart): StartedRunner {
  const { composition, carried, runPatches } = o;
  const { input, profile } = o.admitted;
  const { info, runId, modelRoutes, bundles, policy, state, patches } = o.pinned;
  const ports = startPorts(o);
  const { identity, subject, authority } = establishRunAuthority({
    patches,
    input,
    rawInput: o.rawInput,
    carried,
    principals: o.snapshot.principals,
    runId,
    firstExecutionRunId: info.firstExecutionRunId,
    policy,
  });
  const runner = new Runner({
    state,
    ports,
    policy,
    profile,
    evaluators: composition.evaluators,
    task: input.task,
    approvalTimeoutSeconds: input.approvalTimeoutSeconds ?? 3600,
    isCancellation: (err) => isCancellation(err),
    deadlineReached: o.deadlineReached,
    // Built in the workflow's root scope: only a Temporal cancellation of the run cancels it.
    ...(patches.configPin ? { hostCancelled: workflowCancelled(CancellationScope.current()) } : {}),
    resumed: carried !== undefined,
    subject,
    // The run's OpenTelemetry trace id when the worker traces (noted from the start headers), else the run id.
    ...(patches.eventEnvelope ? { eventEnvelope: { traceId: runTraceId() ?? runId } } : {}),
    ...(carried?.gate !== undefined ? { carriedWait: checkedWait(carried.gate) } : {}),
    ...(carried?.factVersions !== undefined
      ? { carriedFactVersions: checkedFactVersions(carried.factVersions) }
      : {}),
    features: temporalRunFeatures(runPatches, patches),
    ...(modelRoutes ? { modelRoutes } : {}),
    ...(bundles ? { bundles: bundles.pin } : {}),
    ...(bundles?.prompt ? { instructions: bundles.prompt.instructions } : {}),
    ...(authority
      ? {
          authorization: {
            authority,
            loadPrincipals: (knownDigest: string | undefined) =>
              localBookkeeping.loadPrincipals(knownDigest !== undefined ? { knownDigest } : {}),
          },
        }
      : {}),
    ...(patches.guardrails
      ? {
          guardrails: {
            input: createInputGuardrail(composition.guardrails.input),
            output: createOutputGuardrail(composition.guardrails.output),
          },
        }
      : {}),
  });

  // What the previous generation recorded after its last flush: stored with this one's first activity.
  if (carried?.events !== undefined) runner.requeue(checkedEvents(carried.events, runId, state.nextEventSeq));
  return { runner, ports, identity, subject, authority };
}

/** Whether `root` (the workflow's root scope) was cancelled: a Temporal workflow cancellation. */
function workflowCancelled(root: CancellationScope): () => boolean {
  return () => root.consideredCancelled;
}
