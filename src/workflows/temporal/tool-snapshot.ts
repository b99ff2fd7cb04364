import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { RunActivities, ToolSnapshot, ToolSnapshotRequest } from '../../contract/activity-interfaces.js';
import { BUNDLE_ERROR_CODES } from '../../contract/bundles.js';
import { CONFIG_CHANGED, TOOLS_UNAVAILABLE } from '../../contract/failure-types.js';
import type { AgentRunInput } from '../../contract/run-input.js';
import type { Profile } from '../runner/profile.js';
import { BOOKKEEPING_OPTIONS, LOCAL_BOOKKEEPING_OPTIONS } from './activity-options.js';
import type { CarriedRun } from './carried-run.js';
import { checkedConfigPin } from './run-checks.js';
import { LOCAL_BOOKKEEPING_PATCH, type RunPatches } from './run-patches.js';
import { decideStartPatches, type StartPatches } from './start-patches.js';

const bookkeeping = proxyActivities<RunActivities>(BOOKKEEPING_OPTIONS);
const localBookkeeping = proxyLocalActivities<RunActivities>(LOCAL_BOOKKEEPING_OPTIONS);

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
 * The config pin's part of the request: at the first start of a run with the config pin whose starter
 * pinned no config digest, ask for the run's config pin; after continue-as-new, the pin the run
 * carried (checked), for the worker to compare. A run without one asks nothing.
 * @throws ApplicationFailure `run.state_invalid` (non-retryable) for a carried pin that is not well-formed.
 */
function configPinRequest(
  patches: StartPatches,
  input: AgentRunInput,
  carried: CarriedRun | undefined,
): Pick<ToolSnapshotRequest, 'runConfig' | 'configPin'> {
  if (carried) {
    const pin = checkedConfigPin(carried.configPin);
    return pin ? { configPin: pin } : {};
  }
  return patches.configPin && input.configDigest === undefined ? { runConfig: true } : {};
}

/**
 * A worker that cannot serve the run's pinned tools fails this workflow task (a plain Error, not a
 * workflow failure): Temporal retries the task, and a worker that has the tools takes it. The run's
 * history shows the failed task with this message until then.
 */
function refuseUnservedTools(snapshot: Promise<ToolSnapshot>, lean = false): Promise<ToolSnapshot> {
  // The lean frame (run-frame.ts): one promise instead of an async function's two; the same refusals.
  if (lean) return snapshot.then(undefined, refusal);
  return (async () => {
    try {
      return await snapshot;
    } catch (err) {
      return refusal(err);
    }
  })();
}

/** A refused snapshot as a workflow task failure (see {@link refuseUnservedTools}); anything else as it came. */
function refusal(err: unknown): never {
  // A local activity's failure arrives as the ApplicationFailure itself, an activity's wrapped.
  const failure = err instanceof ActivityFailure ? err.cause : err;
  if (failure instanceof ApplicationFailure && failure.type === TOOLS_UNAVAILABLE) {
    throw new Error(`${TOOLS_UNAVAILABLE}: ${failure.message}`);
  }
  // Its configuration under the run's config pin differs, or it lacks the route a new run pins: the
  // same (the refusal's message names its type).
  if (failure instanceof ApplicationFailure && failure.type === CONFIG_CHANGED) {
    throw new Error(failure.message);
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

/** What {@link requestToolSnapshot} started: the snapshot to await, and what it decided before it. */
export interface ToolSnapshotLoad {
  /** The bookkeeping runs as local activities (decided by its patch before anything is scheduled). */
  readonly local: boolean;
  /** The start-time patches, decided before the local activity; undefined on the older path. */
  readonly patches: StartPatches | undefined;
  /** The worker's snapshot of the run's tools (and model routes, bundles, principals). */
  readonly snapshot: Promise<ToolSnapshot>;
}

/**
 * Schedule the load of the worker's tool snapshot for a run (a local activity, or an activity on
 * histories from before the local bookkeeping). Not awaited here: the caller awaits `snapshot`.
 *
 * Failure semantics: `snapshot` rejects with a plain Error (a workflow task failure, retried by
 * Temporal until a worker that can serve the run takes it) when this worker lacks the run's pinned
 * tools (`worker.tools_unavailable`), its configuration under the run's config pin
 * (`worker.config_changed`) or bundles (`bundle.not_found`, `bundle.changed`); any other
 * failure of the activity as it came.
 */
export function requestToolSnapshot(
  runPatches: RunPatches,
  input: AgentRunInput,
  profile: Profile,
  carried: CarriedRun | undefined,
  slots: { readonly profile: string; readonly policy: string },
): ToolSnapshotLoad {
  const local = runPatches.on(LOCAL_BOOKKEEPING_PATCH);
  let patches: StartPatches | undefined;
  let snapshot: Promise<ToolSnapshot>;
  if (local) {
    // Every start-time patch is decided before the local activity: on replay, a patch asked after a
    // local activity whose workflow task was heartbeated would be asked a task too early.
    patches = decideStartPatches(runPatches, profile.kind === 'graph');
    const snapshotRequest = {
      ...toolSnapshotRequest(input, profile.tools, carried, slots),
      ...(patches.signedDecisions ? { withPrincipals: true } : {}),
      ...configPinRequest(patches, input, carried),
    };
    snapshot = refuseUnservedTools(localBookkeeping.loadToolSnapshot(snapshotRequest), patches.leanFrame);
  } else {
    // Only histories from before the local bookkeeping take this path; their snapshot had completed.
    snapshot = refuseUnservedTools(
      bookkeeping.loadToolSnapshot(toolSnapshotRequest(input, profile.tools, carried)),
    );
  }
  return { local, patches, snapshot };
}
