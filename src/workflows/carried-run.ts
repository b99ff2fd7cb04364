import { ApplicationFailure } from '@temporalio/workflow';
import type { RunState } from '../runner/run-state.js';

/** History length (events) after which a run continues as new, unless the input says otherwise. */
export const DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS = 5_000;

/** The patch id guarding continue-as-new checkpoints (histories from before it replay unchanged). */
export const CONTINUE_AS_NEW_PATCH = 'agent-run-continue-as-new';

/** What one generation of a run hands to the next on continue-as-new. */
export interface CarriedRun {
  readonly schemaVersion: 1;
  readonly state: RunState;
}

/**
 * Validate carried state before resuming it. Fails closed (non-retryable) on a newer or unknown
 * schema version or a state of another run: never guesses.
 */
export function restoreCarriedState(carried: CarriedRun, runId: string): RunState {
  const version = (carried as { schemaVersion?: unknown }).schemaVersion;
  const stateVersion = (carried.state as { schemaVersion?: unknown } | undefined)?.schemaVersion;
  if (version !== 1 || stateVersion !== 1) {
    throw ApplicationFailure.create({
      type: 'run.state_version_unsupported',
      nonRetryable: true,
      message: `carried run state has schema version ${String(version)}/${String(stateVersion)}; this build reads version 1`,
    });
  }
  if (carried.state.runId !== runId) {
    throw ApplicationFailure.create({
      type: 'run.state_mismatch',
      nonRetryable: true,
      message: `carried state belongs to run ${carried.state.runId}, not ${runId}`,
    });
  }
  return carried.state;
}
