import { upsertMemo, workflowInfo, type WorkflowInfo } from '@temporalio/workflow';
import type { ToolSnapshot } from '../../contract/activity-interfaces.js';
import type { ResolvedBundles } from '../../contract/bundles.js';
import type { ModelRoutePlan } from '../../contract/model-routes.js';
import { describeInputIssues, type AgentRunInput } from '../../contract/run-input.js';
import type { Policy } from '../policy/policy.js';
import { DEFAULT_LIMITS, PartialBudgetLimitsSchema, type BudgetLimits } from '../runner/budget.js';
import { createInitialRunState } from '../runner/initial-state.js';
import type { Profile } from '../runner/profile.js';
import type { RunState } from '../runner/run-state.js';
import { checkRunProfile, type AgentRunComposition } from './agent-run-definition.js';
import { restoreCarriedState, type CarriedRun } from './carried-run.js';
import { checkedBundles, checkedConfigPin, checkedModelRoutes, fail, parseInput } from './run-checks.js';
import type { RunConfigPin } from '../../contract/run-config.js';
import type { RunPatches } from './run-patches.js';
import { bindRunPolicy, bundledPolicy } from './run-policy.js';
import { decideStartPatches, type StartPatches } from './start-patches.js';
import { refuseUnsupportedStart } from './start-refusals.js';
import { versionedName } from '../../contract/versioned-name.js';

/** What a generation starts from before it loads anything: checked by {@link admitRun}. */
export interface AdmittedRun {
  readonly input: AgentRunInput;
  readonly profile: Profile;
  /** The policy in code the run is bound to (before any policy bundle). */
  readonly codePolicy: Policy;
  /** The profile and policy by `name@version`, for the rollout's bundle slots. */
  readonly slots: { readonly profile: string; readonly policy: string };
  readonly limits: BudgetLimits;
}

/**
 * Admit a generation: its input, its profile (checked: the worker process checked the whole
 * definition at start), the refusals of an execution that must not run, its policy and its budget.
 * Asks no patch before its refusals need one, schedules nothing.
 * @throws ApplicationFailure (non-retryable) `run.invalid_input` for input or a budget that does not
 *   parse, `run.unknown_profile`, the refusals of {@link refuseUnsupportedStart}, those of
 *   {@link bindRunPolicy}; whatever a profile's or policy's own check throws (a workflow task
 *   failure, retried).
 */
export function admitRun(
  composition: AgentRunComposition,
  rawInput: unknown,
  carried: CarriedRun | undefined,
  runPatches: RunPatches,
): AdmittedRun {
  const input = parseInput(rawInput);
  const profile = composition.profiles.find(input.profile.name, input.profile.version);
  if (!profile)
    fail(
      'run.unknown_profile',
      `profile ${versionedName(input.profile.name, input.profile.version)} is not registered`,
    );
  // Only the run's own profile: the worker process checked the whole definition at start.
  checkRunProfile(composition, profile);
  refuseUnsupportedStart(carried, runPatches);
  const bound = bindRunPolicy(composition, profile, input, carried, runPatches);
  const slots = {
    profile: versionedName(profile.name, profile.version),
    policy: versionedName(bound.name, bound.version),
  };
  const limitsParsed = PartialBudgetLimitsSchema.safeParse(input.budget ?? {});
  if (!limitsParsed.success)
    fail('run.invalid_input', `invalid budget: ${describeInputIssues(limitsParsed.error)}`);
  const limits = { ...DEFAULT_LIMITS, ...limitsParsed.data };
  return { input, profile, codePolicy: bound.policy, slots, limits };
}

/** A generation's pins and state, from {@link pinRun}. */
export interface PinnedRun {
  readonly info: WorkflowInfo;
  readonly runId: string;
  readonly modelRoutes: ModelRoutePlan | undefined;
  readonly bundles: ResolvedBundles | undefined;
  /** The policy the run uses: its policy in code, or its pinned policy bundle's. */
  readonly policy: Policy;
  readonly state: RunState;
  readonly patches: StartPatches;
  /**
   * The run's config pin (`agent-run-config-pin-v1`): from the snapshot at the first start, carried
   * after. Undefined for runs without it (their `configDigest` is the worker's whole one, never compared).
   */
  readonly configPin: RunConfigPin | undefined;
}

/**
 * Pin a generation to what the worker's snapshot served: its model routes and bundles (pinned at the
 * first start, kept by later generations), its policy, its state (new, or carried and migrated), the
 * start memo of a first generation, and the start-time patches when the snapshot did not decide them
 * (histories from before the local bookkeeping ask them here, after the memo).
 * @throws ApplicationFailure (non-retryable) `run.model_routes_invalid`, `run.bundles_invalid`,
 *   `run.no_model_route`, `run.no_config_digest`, `run.config_pin_invalid`, `run.state_invalid`, and those of {@link restoreCarriedState};
 *   Error `bundle.not_found` (a workflow task failure) when a carried bundle pin came back unresolved.
 */
export function pinRun(
  admitted: AdmittedRun,
  carried: CarriedRun | undefined,
  snapshot: ToolSnapshot,
  runPatches: RunPatches,
  decided: StartPatches | undefined,
): PinnedRun {
  const { input, profile, codePolicy, limits } = admitted;
  const info = workflowInfo();
  const runId = info.workflowId;
  // The model routes are pinned once, at the first start; a later generation keeps them.
  const modelRoutes = checkedModelRoutes(carried ? carried.models : snapshot.modelRoutes);
  // The bundles are pinned once too; every generation gets their content from a worker through the pin.
  // Runs without a pin (histories from before, workers without a rollout) use the content in code.
  const bundles = checkedBundles(snapshot.bundles, carried?.bundles);
  const policy = bundledPolicy(codePolicy, bundles);
  // The config pin is pinned once too: a later generation keeps (and its worker checked) the carried one.
  const configPin = carried
    ? checkedConfigPin(carried.configPin)
    : checkedConfigPin(snapshot.runConfig, 'snapshot');
  const state: RunState = carried
    ? restoreCarriedState(carried, runId)
    : createInitialRunState({
        runId,
        threadId: input.threadId,
        versions: {
          profile: versionedName(profile.name, profile.version),
          policy: versionedName(policy.name, policy.version),
          toolRegistryDigest: snapshot.digest,
          // Pinned from the worker that served the start unless the starter pinned them.
          modelRoute:
            input.modelRoute ??
            modelRoutes?.purposes.default ??
            snapshot.defaultModelRoute ??
            fail('run.no_model_route', 'no model route'),
          // A config pin's digest is the run's own (run-scoped); else the worker's whole one, for the record.
          configDigest:
            input.configDigest ??
            configPin?.digest ??
            snapshot.configDigest ??
            fail('run.no_config_digest', 'no config digest'),
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
  const patches = decided ?? decideStartPatches(runPatches, profile.kind === 'graph');
  return { info, runId, modelRoutes, bundles, policy, state, patches, configPin };
}
