import { ApplicationFailure } from '@temporalio/workflow';
import { DurableShapes, MigrationError, migrate, type RunStateV1 } from '../migration/index.js';
import type { RunState } from '../runner/run-state.js';
import type { AuthzCarried } from '../authz/decision-authority.js';
import type { CarriedWait } from '../runner/carried-wait.js';
import type { AgentEvent } from '../../contract/agent-event.js';
import type { ModelRoutePlan } from '../../contract/model-routes.js';
import type { BundlePin } from '../../contract/bundles.js';
import type { CarriedOrigin } from './carried-origin.js';
import type { RunIdentity } from '../authz/start-token.js';
import type { RunConfigPin } from '../../contract/run-config.js';

/** History length (events) after which a run continues as new, unless the input says otherwise. */
export const DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS = 5_000;

/**
 * What one generation of a run hands to the next on continue-as-new. The envelope is version 1; the
 * state inside carries its own `schemaVersion` (this build writes 2; a generation started by an older
 * build carries 1) and is migrated by {@link restoreCarriedState}.
 */
export interface CarriedRun {
  readonly schemaVersion: 1;
  readonly state: RunState | RunStateV1;
  /** Signed runs: decision counter, spent tokens, approvals by call, decision record. */
  readonly authz?: AuthzCarried;
  /** A run that continued as new in the middle of a wait: the gate's part (see {@link CarriedWait}). */
  readonly gate?: CarriedWait;
  /** The model routes the run pinned at its first start (checked again when restored). */
  readonly models?: ModelRoutePlan;
  /** The bundles the run pinned at its first start (docs/control-plane.md): resolved again by a worker. */
  readonly bundles?: BundlePin;
  /**
   * Events the generation emitted after its last flush (see `eventsToCarry`): the next one stores them
   * with its first activity, under their own sequence numbers. A worker from before ignores them.
   */
  readonly events?: readonly AgentEvent[];
  /**
   * The generation that handed this over and a digest of the rest (see `carriedStateRefusal`). Absent
   * only from a generation of a build before the binding.
   */
  readonly origin?: CarriedOrigin;
  /**
   * The facts' versions (`agent-run-versioned-facts-v1`, see fact-versions.ts): each fact name's
   * current version, so the next generation goes on counting. A worker from before ignores them.
   */
  readonly factVersions?: Readonly<Record<string, number>>;
  /** Who the run is for, as its first generation verified it (absent: a run before identities). */
  readonly identity?: RunIdentity;
  /**
   * The run's config pin (`agent-run-config-pin-v1`), as its first generation pinned it: every later
   * generation checks it at its start and sends it with every call. A worker from before ignores it.
   */
  readonly configPin?: RunConfigPin;
}

/**
 * Validate and migrate carried state to this build's version before resuming it (run state 1 -> 2
 * through the registered step). Fails closed (non-retryable ApplicationFailure, type =
 * the MigrationError code, e.g. `migration.version_too_new`) on a newer or unknown schema version or
 * a state that does not match its version's schema; `run.state_version_unsupported` for an unknown
 * envelope; `run.state_mismatch` for a state of another run. Never guesses.
 */
export function restoreCarriedState(carried: CarriedRun, runId: string): RunState {
  if ((carried as { schemaVersion?: unknown }).schemaVersion !== 1) {
    throw ApplicationFailure.create({
      type: 'run.state_version_unsupported',
      nonRetryable: true,
      message: `carried run envelope has schema version ${String((carried as { schemaVersion?: unknown }).schemaVersion)}; this build reads version 1`,
    });
  }
  let state: RunState;
  try {
    // Registered, tested migrations only; a newer or unknown version fails closed.
    state = migrate<RunState>(DurableShapes.runState, carried.state).value;
  } catch (err) {
    if (err instanceof MigrationError) {
      throw ApplicationFailure.create({
        type: err.code,
        nonRetryable: true,
        message: `carried run state: ${err.message}`,
      });
    }
    throw err;
  }
  if (state.runId !== runId) {
    throw ApplicationFailure.create({
      type: 'run.state_mismatch',
      nonRetryable: true,
      message: `carried state belongs to run ${state.runId}, not ${runId}`,
    });
  }
  return state;
}
