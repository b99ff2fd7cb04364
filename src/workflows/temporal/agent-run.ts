import { createInputGuardrail, createOutputGuardrail } from '../guardrails/index.js';
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  setWorkflowOptions,
  sleep,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { RunActivities, ToolSnapshot, ToolSnapshotRequest } from '../../contract/activity-interfaces.js';
import { TOOLS_UNAVAILABLE } from '../../contract/failure-types.js';
import { AgentRunInputSchema, describeInputIssues, type AgentRunInput } from '../../contract/run-input.js';
import { ModelRoutePlanSchema, type ModelRoutePlan } from '../../contract/model-routes.js';
import {
  BUNDLE_ERROR_CODES,
  ResolvedBundlesSchema,
  type BundlePin,
  type ResolvedBundles,
} from '../../contract/bundles.js';
import { RulesPolicy } from '../policy/rules-policy.js';
import type { Policy } from '../policy/policy.js';
import {
  DecideUpdateSchema,
  SIGNAL_NAMES,
  UPDATE_NAMES,
  type DecideUpdate,
  type DecisionOutcome,
  type DecisionSignalName,
} from '../../contract/signals.js';
import { DEFAULT_AUTHORIZATION } from '../authz/authorization-rules.js';
import { AuthzCarriedSchema, DecisionAuthority, type AuthzCarried } from '../authz/decision-authority.js';
import { PrincipalDirectory } from '../authz/principal-directory.js';
import { QUERY_NAMES } from '../../contract/visibility.js';
import { DEFAULT_LIMITS, PartialBudgetLimitsSchema } from '../runner/budget.js';
import { boundCarriedState } from '../runner/carried-bounds.js';
import { ContinueAsNewRequested } from '../runner/continue-as-new.js';
import { CarriedWaitSchema, type CarriedWait } from '../runner/carried-wait.js';
import { carriedEventsProblem, eventsToCarry } from '../runner/carried-events.js';
import type { AgentEvent } from '../../contract/agent-event.js';
import { createInitialRunState } from '../runner/initial-state.js';
import { DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS, restoreCarriedState, type CarriedRun } from './carried-run.js';
import { refuseUnsupportedStart } from './start-refusals.js';
import { decideStartPatches, type StartPatches } from './start-patches.js';
import { establishIdentity, subjectOf } from './run-identity.js';
import { refuseUnlessAccepted } from './decision-refusal.js';
import { sealCarried } from './carried-origin.js';
import type { RunState } from '../runner/run-state.js';
import { Runner } from '../runner/runner.js';
import { BOOKKEEPING_OPTIONS, DEFAULT_TIMEOUTS, LOCAL_BOOKKEEPING_OPTIONS } from './activity-options.js';
import {
  bindPolicy,
  checkRunProfile,
  registerAgentRun,
  type AgentRunComposition,
  type AgentRunDefinition,
} from './agent-run-definition.js';
import { allowedPolicies } from '../runner/profile.js';
import { toRunView, type RunView } from './run-view.js';
import { RunVisibility } from './run-visibility.js';
import { runTraceId } from './run-trace-context.js';
import { createTemporalPorts, elapsedSince } from './temporal-ports.js';
import {
  BOUNDED_CARRY_PATCH,
  LOCAL_BOOKKEEPING_PATCH,
  MODEL_FALLBACK_PATCH,
  OUTPUT_RETRY_PATCH,
  OUTPUT_TEXT_LIMIT_PATCH,
  OVERDUE_WRITE_PATCH,
  POLICY_BINDING_PATCH,
  RunPatches,
  TRUSTED_IDS_PATCH,
} from './run-patches.js';

export const approveSignal = defineSignal<[unknown]>(SIGNAL_NAMES.approve);
export const rejectSignal = defineSignal<[unknown]>(SIGNAL_NAMES.reject);
export const reconcileSignal = defineSignal<[unknown]>(SIGNAL_NAMES.reconcile);
export const provideInputSignal = defineSignal<[unknown]>(SIGNAL_NAMES.provideInput);
export const cancelRunSignal = defineSignal<[unknown]>(SIGNAL_NAMES.cancelRun);
export const confirmSignal = defineSignal<[unknown]>(SIGNAL_NAMES.confirm);
export const decideUpdate = defineUpdate<DecisionOutcome, [DecideUpdate]>(UPDATE_NAMES.decide);

function splitPolicy(spec: string): { name: string; version: string } {
  const [name = '', version = ''] = spec.split('@');
  return { name, version };
}

/**
 * A carried wait, checked like any input: bounded, well-formed.
 * @throws ApplicationFailure `run.state_invalid` (non-retryable) when it is not.
 */
function checkedWait(value: unknown): CarriedWait {
  const parsed = CarriedWaitSchema.safeParse(value);
  if (!parsed.success) fail('run.state_invalid', `carried wait: ${describeInputIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * Carried events, checked like any input: bounded, of this run, numbered before the carried state's
 * next sequence number.
 * @throws ApplicationFailure `run.state_invalid` (non-retryable) when they are not.
 */
function checkedEvents(value: unknown, runId: string, nextEventSeq: number): AgentEvent[] {
  const problem = carriedEventsProblem(value, runId, nextEventSeq);
  if (problem !== undefined) fail('run.state_invalid', `carried events: ${problem}`);
  return value as AgentEvent[];
}

/**
 * Carried decision state, checked like any input: bounded, well-formed.
 * @throws ApplicationFailure `run.state_invalid` (non-retryable) when it is not.
 */
function checkedAuthz(value: unknown): AuthzCarried {
  const parsed = AuthzCarriedSchema.safeParse(value);
  if (!parsed.success)
    fail('run.state_invalid', `carried decision state: ${describeInputIssues(parsed.error)}`);
  return parsed.data;
}

export const stateQuery = defineQuery<RunView>(QUERY_NAMES.state);

/** What an `agentRun` workflow returns: its terminal status and output (business outcome, not an error). */
export interface AgentRunResult {
  readonly runId: string;
  readonly status: RunState['status'];
  readonly output: unknown;
  readonly terminalReason: RunState['terminalReason'];
  readonly versions: RunState['versions'];
  readonly artifactIds: string[];
}

const bookkeeping = proxyActivities<RunActivities>(BOOKKEEPING_OPTIONS);
const localBookkeeping = proxyLocalActivities<RunActivities>(LOCAL_BOOKKEEPING_OPTIONS);

function fail(code: string, message: string): never {
  throw ApplicationFailure.create({ type: code, message, nonRetryable: true });
}

/**
 * What the tool snapshot must match: the legacy whole-registry digest when the starter pinned one;
 * else, after continue-as-new, the profile-tool digest the first generation pinned (read from the
 * carried state before it is migrated: every state version has it); else nothing (first start).
 */
function toolSnapshotRequest(
  input: AgentRunInput,
  names: readonly string[],
  carried: CarriedRun | undefined,
  slots?: { readonly profile: string; readonly policy: string },
): ToolSnapshotRequest {
  // At the first start the worker also says which model routes the run pins (for the starter's route)
  // and, with a rollout config, its arm and bundles; a later generation asks for its pinned bundles.
  const route = {
    ...(!carried && input.modelRoute !== undefined ? { modelRoute: input.modelRoute } : {}),
    ...(!carried && slots ? { bundleSlots: { workflowId: workflowInfo().workflowId, ...slots } } : {}),
    ...(carried?.bundles !== undefined ? { bundlePin: carried.bundles } : {}),
  };
  if (input.toolRegistryDigest !== undefined)
    return { expectedDigest: input.toolRegistryDigest, names, ...route };
  const pinned = (carried?.state as { versions?: { toolRegistryDigest?: unknown } } | undefined)?.versions
    ?.toolRegistryDigest;
  return typeof pinned === 'string' ? { toolsDigest: pinned, names, ...route } : { names, ...route };
}

/**
 * A worker that cannot serve the run's pinned tools fails this workflow task (a plain Error, not a
 * workflow failure): Temporal retries the task, and a worker that has the tools takes it. The run's
 * history shows the failed task with this message until then.
 */
async function refuseUnservedTools(snapshot: Promise<ToolSnapshot>): Promise<ToolSnapshot> {
  try {
    return await snapshot;
  } catch (err) {
    // A local activity's failure arrives as the ApplicationFailure itself, an activity's wrapped.
    const failure = err instanceof ActivityFailure ? err.cause : err;
    if (failure instanceof ApplicationFailure && failure.type === TOOLS_UNAVAILABLE) {
      throw new Error(`${TOOLS_UNAVAILABLE}: ${failure.message}`);
    }
    // A worker that lacks a pinned bundle version, or has other content under it: the same (another
    // worker, or this one once deployed with the bundle, takes the task; the run never falls back).
    if (
      failure instanceof ApplicationFailure &&
      (failure.type === BUNDLE_ERROR_CODES.notFound || failure.type === BUNDLE_ERROR_CODES.changed)
    ) {
      throw new Error(`${failure.type}: ${failure.message}`);
    }
    throw err;
  }
}

/**
 * The model routes of a run, checked (bounded, closed): from the worker's snapshot at the first start,
 * from the carried envelope after continue-as-new.
 * @throws ApplicationFailure `run.model_routes_invalid` (non-retryable) when they do not match the schema.
 */
function checkedModelRoutes(value: unknown): ModelRoutePlan | undefined {
  if (value === undefined) return undefined;
  const parsed = ModelRoutePlanSchema.safeParse(value);
  if (!parsed.success)
    fail('run.model_routes_invalid', `pinned model routes: ${describeInputIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * The bundles of a run, checked (bounded, closed): from the worker's snapshot. A run whose first
 * generation pinned bundles must get them resolved in every later one.
 * @throws ApplicationFailure `run.bundles_invalid` (non-retryable) when they do not match the schema;
 *   Error `bundle.not_found` (a workflow task failure) when a carried pin came back unresolved.
 */
function checkedBundles(value: unknown, carriedPin: BundlePin | undefined): ResolvedBundles | undefined {
  if (value === undefined) {
    if (carriedPin !== undefined)
      throw new Error(`${BUNDLE_ERROR_CODES.notFound}: this worker did not resolve the run's pinned bundles`);
    return undefined;
  }
  const parsed = ResolvedBundlesSchema.safeParse(value);
  if (!parsed.success) fail('run.bundles_invalid', `pinned bundles: ${describeInputIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * The policy a run uses: its policy in code, or, when it pinned a policy bundle for it, a
 * `RulesPolicy` of the bundle's data under the same name and version (decisions name the policy; the
 * pin names the data). The authorization rules come from the bundle when it has them, else from the
 * policy in code.
 * @throws ApplicationFailure `run.bundles_invalid` (non-retryable) when the data is not a rules policy.
 */
function bundledPolicy(policy: Policy, bundles: ResolvedBundles | undefined): Policy {
  const data = bundles?.policy?.data;
  if (data === undefined) return policy;
  try {
    const bundled = new RulesPolicy({
      ...(policy.authorization !== undefined ? { authorization: policy.authorization } : {}),
      ...(data as unknown as ConstructorParameters<typeof RulesPolicy>[0]),
      name: policy.name,
      version: policy.version,
    });
    return bundled;
  } catch (err) {
    return fail(
      'run.bundles_invalid',
      `policy bundle ${bundles?.pin.policy?.key}: ${(err as Error).message}`,
    );
  }
}

function parseInput(raw: unknown): AgentRunInput {
  const parsed = AgentRunInputSchema.safeParse(raw);
  if (!parsed.success)
    fail('run.invalid_input', `invalid agentRun input: ${describeInputIssues(parsed.error)}`);
  return parsed.data;
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
  const input = parseInput(rawInput);
  const profile = composition.profiles.find(input.profile.name, input.profile.version);
  if (!profile)
    fail('run.unknown_profile', `profile ${input.profile.name}@${input.profile.version} is not registered`);
  // Only the run's own profile: the worker process checked the whole definition at start.
  checkRunProfile(composition, profile);
  refuseUnsupportedStart(carried, runPatches);
  // A carried run keeps the policy its first generation pinned, whatever the profile's default is now.
  const pinnedPolicy = (carried?.state as { versions?: { policy?: unknown } } | undefined)?.versions?.policy;
  const bound =
    typeof pinnedPolicy === 'string' && input.policy === undefined
      ? { ...splitPolicy(pinnedPolicy), allowed: true }
      : bindPolicy(profile, input.policy);
  // A carried run keeps the policy its first generation started under. Asked only on the refusal path,
  // so histories from before the binding (a profile run under any registered policy) replay unchanged.
  if (!bound.allowed && !carried && runPatches.on(POLICY_BINDING_PATCH))
    fail(
      'run.policy_not_allowed',
      `profile ${profile.name}@${profile.version} may not run under ${bound.name}@${bound.version} (allowed: ${allowedPolicies(profile).join(', ')})`,
    );
  const codePolicy = composition.policies.find(bound.name, bound.version);
  if (!codePolicy) fail('run.unknown_policy', `policy ${bound.name}@${bound.version} is not registered`);
  // A policy built on first use is built here: a bad one fails this workflow task (retried).
  codePolicy.check?.();
  const slots = { profile: `${profile.name}@${profile.version}`, policy: `${bound.name}@${bound.version}` };
  const limitsParsed = PartialBudgetLimitsSchema.safeParse(input.budget ?? {});
  if (!limitsParsed.success)
    fail('run.invalid_input', `invalid budget: ${describeInputIssues(limitsParsed.error)}`);
  const limits = { ...DEFAULT_LIMITS, ...limitsParsed.data };

  const local = runPatches.on(LOCAL_BOOKKEEPING_PATCH);
  let patches: StartPatches | undefined;
  let snapshot: Awaited<ReturnType<typeof bookkeeping.loadToolSnapshot>>;
  if (local) {
    // Every start-time patch is decided before the local activity: on replay, a patch asked after a
    // local activity whose workflow task was heartbeated would be asked a task too early.
    patches = decideStartPatches(runPatches, profile.kind === 'graph');
    const snapshotRequest = {
      ...toolSnapshotRequest(input, profile.tools, carried, slots),
      ...(patches.signedDecisions ? { withPrincipals: true } : {}),
    };
    snapshot = await refuseUnservedTools(localBookkeeping.loadToolSnapshot(snapshotRequest));
  } else {
    // Only histories from before the local bookkeeping take this path; their snapshot had completed.
    snapshot = await refuseUnservedTools(
      bookkeeping.loadToolSnapshot(toolSnapshotRequest(input, profile.tools, carried)),
    );
  }
  const info = workflowInfo();
  const runId = info.workflowId;
  // The model routes are pinned once, at the first start; a later generation keeps them.
  const modelRoutes = checkedModelRoutes(carried ? carried.models : snapshot.modelRoutes);
  // The bundles are pinned once too; every generation gets their content from a worker through the pin.
  // Runs without a pin (histories from before, workers without a rollout) use the content in code.
  const bundles = checkedBundles(snapshot.bundles, carried?.bundles);
  const policy = bundledPolicy(codePolicy, bundles);
  const state: RunState = carried
    ? restoreCarriedState(carried, runId)
    : createInitialRunState({
        runId,
        threadId: input.threadId,
        versions: {
          profile: `${profile.name}@${profile.version}`,
          policy: `${policy.name}@${policy.version}`,
          toolRegistryDigest: snapshot.digest,
          // Pinned from the worker that served the start unless the starter pinned them.
          modelRoute:
            input.modelRoute ??
            modelRoutes?.purposes.default ??
            snapshot.defaultModelRoute ??
            fail('run.no_model_route', 'no model route'),
          configDigest:
            input.configDigest ?? snapshot.configDigest ?? fail('run.no_config_digest', 'no config digest'),
        },
        limits,
        startedAt: new Date().toISOString(),
      });
  if (!carried)
    upsertMemo({
      versions: state.versions,
      ...(modelRoutes ? { modelRoutes: modelRoutes.purposes } : {}),
      ...(bundles ? { bundles: bundles.pin } : {}),
    });
  // Histories from before the local bookkeeping asked these here, after the memo: same order on replay.
  patches ??= decideStartPatches(runPatches, profile.kind === 'graph');

  const visibility = new RunVisibility({ publishQueued: !runPatches.baseline });
  const t = input.activityTimeouts;
  const timeouts = {
    writeHeartbeatSeconds: t?.writeHeartbeatSeconds ?? DEFAULT_TIMEOUTS.writeHeartbeatSeconds,
    readHeartbeatSeconds: t?.readHeartbeatSeconds ?? DEFAULT_TIMEOUTS.readHeartbeatSeconds,
    modelHeartbeatSeconds: t?.modelHeartbeatSeconds ?? DEFAULT_TIMEOUTS.modelHeartbeatSeconds,
  };
  const ports = createTemporalPorts(
    snapshot.definitions,
    timeouts,
    visibility,
    {
      // Decided once at the start (a one-off marker), so histories from before it replay unchanged.
      enabled: patches.continueAsNew,
      afterEvents: input.continueAsNewAfterEvents ?? DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS,
      ...(input.waitHistoryBoundBytes !== undefined ? { waitBoundBytes: input.waitHistoryBoundBytes } : {}),
    },
    local,
    patches.graphNodeChecks,
    runPatches,
  );
  let deadlineReached = false;
  // Who the run is for: verified from its start token (or carried), anonymous when unsigned.
  const identity = patches.trustScope
    ? establishIdentity({
        input,
        rawInput,
        carried,
        principals: snapshot.principals,
        workflowId: runId,
        nowMs: Date.now(),
      })
    : undefined;
  /** Who the run was started for: in run.started, every policy request and the `state` view. */
  const subject = subjectOf(identity, input);
  const authority = patches.signedDecisions
    ? new DecisionAuthority({
        workflowId: runId,
        firstExecutionRunId: info.firstExecutionRunId,
        requester: subject.verified === false ? undefined : subject.userId,
        ...(subject.tenantId !== undefined ? { tenantId: subject.tenantId } : {}),
        ...(patches.trustScope ? { scoped: true } : {}),
        rules: policy.authorization ?? DEFAULT_AUTHORIZATION,
        ...(carried?.authz ? { carried: checkedAuthz(carried.authz) } : {}),
      })
    : undefined;
  // The registry as of the start, so a decision that comes before any wait (a cancellation) can be
  // checked; each wait loads it again.
  const principals = snapshot.principals;
  if (authority && principals?.registry)
    authority.useDirectory(new PrincipalDirectory(principals.digest, principals.registry));
  const runner = new Runner({
    state,
    ports,
    policy,
    profile,
    evaluators: composition.evaluators,
    task: input.task,
    approvalTimeoutSeconds: input.approvalTimeoutSeconds ?? 3600,
    isCancellation: (err) => isCancellation(err),
    deadlineReached: () => deadlineReached,
    resumed: carried !== undefined,
    subject,
    // The run's OpenTelemetry trace id when the worker traces (noted from the start headers), else the run id.
    ...(patches.eventEnvelope ? { eventEnvelope: { traceId: runTraceId() ?? runId } } : {}),
    ...(carried?.gate !== undefined ? { carriedWait: checkedWait(carried.gate) } : {}),
    outputRetryEnabled: () => runPatches.on(OUTPUT_RETRY_PATCH),
    ...(modelRoutes ? { modelRoutes, modelFallbackEnabled: () => runPatches.on(MODEL_FALLBACK_PATCH) } : {}),
    ...(bundles ? { bundles: bundles.pin } : {}),
    ...(bundles?.prompt ? { instructions: bundles.prompt.instructions } : {}),
    exemptTrustedIdentifiers: () => runPatches.on(TRUSTED_IDS_PATCH),
    limitOutputText: () => runPatches.on(OUTPUT_TEXT_LIMIT_PATCH),
    invalidToolCalls: patches.invalidToolCalls,
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

  const scope = new CancellationScope();
  const receive = (signal: DecisionSignalName, payload: unknown): DecisionOutcome => {
    const outcome = runner.gate.receive(signal, payload);
    if (signal === 'cancelRun' && runner.gate.cancelRequest) scope.cancel();
    return outcome;
  };
  setHandler(approveSignal, (p) => void receive('approve', p));
  setHandler(rejectSignal, (p) => void receive('reject', p));
  setHandler(confirmSignal, (p) => void receive('confirm', p));
  setHandler(reconcileSignal, (p) => void receive('reconcile', p));
  setHandler(provideInputSignal, (p) => void receive('provideInput', p));
  setHandler(cancelRunSignal, (p) => void receive('cancelRun', p));
  // The same decisions, answered at once. The validator refuses, never in history and never counted
  // against the run's update limit, a malformed envelope and every decision the run would refuse now
  // (decision-refusal.ts); what only taking it can refuse is the update's answer, recorded.
  setHandler(decideUpdate, (u) => receive(u.signal, u.payload), {
    validator: (u) => {
      const parsed = DecideUpdateSchema.safeParse(u);
      if (!parsed.success) throw new Error(`signal.malformed: ${describeInputIssues(parsed.error)}`);
      refuseUnlessAccepted(runner.gate.preview(parsed.data.signal, parsed.data.payload));
    },
  });
  setHandler(stateQuery, () =>
    authority
      ? {
          ...toRunView(state),
          ...subject,
          ...(runner.gate.pendingArguments !== undefined
            ? { pendingArguments: runner.gate.pendingArguments }
            : {}),
          firstExecutionRunId: info.firstExecutionRunId,
          decisions: [...authority.decisions],
        }
      : { ...toRunView(state), ...subject },
  );

  // A cancellation accepted while the previous generation was moving to this one.
  if (runner.gate.cancelRequest) scope.cancel();

  const deadlineMs = Math.max(0, limits.deadlineSeconds * 1000 - elapsedSince(state.startedAt));
  void CancellationScope.cancellable(async () => {
    await sleep(deadlineMs);
    deadlineReached = true;
    // An unresolved write is never dropped: escalate, wait for the person, then end the run.
    if (runner.gate.reconciling && runPatches.on(OVERDUE_WRITE_PATCH)) {
      await runner.gate.escalateReconciliation(limits.deadlineSeconds);
      await condition(() => !runner.gate.reconciling);
    }
    scope.cancel();
  }).catch(() => undefined);

  try {
    await scope.run(() => runner.execute(profile));
  } catch (err) {
    if (err instanceof ContinueAsNewRequested) {
      // Asked before the last flush: a patch asked after a local activity is fragile on replay.
      const bounded = runPatches.on(BOUNDED_CARRY_PATCH);
      // Between steps, nothing pending: store the outbox, let handlers finish, carry compact state.
      await CancellationScope.nonCancellable(() => ports.flushEvents(runner.takeOutbox(), { last: true }));
      await condition(allHandlersFinished);
      // Read last: a decision accepted while the events were stored goes with the run, and so does the
      // record of a signal refused meanwhile (stored by the next generation).
      const gate = runner.gate.carry();
      const late = eventsToCarry(runner.takeLateEvents());
      // Events past the carried bounds are left out; they were the last ones: the sequence stays gap-free.
      if (late.nextEventSeq !== undefined) state.nextEventSeq = late.nextEventSeq;
      const next: CarriedRun = {
        schemaVersion: 1,
        state: bounded ? boundCarriedState(state) : state,
        ...(authority ? { authz: authority.carry() } : {}),
        ...(identity ? { identity } : {}),
        ...(gate ? { gate } : {}),
        ...(modelRoutes ? { models: modelRoutes } : {}),
        ...(bundles ? { bundles: bundles.pin } : {}),
        ...(late.events ? { events: late.events } : {}),
      };
      // Bound to this generation (input data, no command): the next one takes it only from here.
      await continueAsNew<AgentRunWorkflow>(input, sealCarried(next, workflowInfo()));
    }
    if (!isCancellation(err)) throw err;
  }
  if (
    state.status !== 'succeeded' &&
    state.status !== 'failed' &&
    state.status !== 'cancelled' &&
    state.status !== 'budget_exhausted'
  ) {
    await CancellationScope.nonCancellable(() => runner.finishCancelled());
  }
  return {
    runId,
    status: state.status,
    output: state.output,
    terminalReason: state.terminalReason,
    versions: state.versions,
    artifactIds: state.artifacts.map((a) => a.id),
  };
}
