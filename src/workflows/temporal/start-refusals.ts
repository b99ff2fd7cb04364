import { ApplicationFailure, patched, workflowInfo } from '@temporalio/workflow';
import { carriedStateRefusal, unsupportedStartRefusal } from './carried-origin.js';
import type { CarriedRun } from './carried-run.js';
import { CARRIED_BINDING_PATCH, CARRIED_ONLY_PATCH, type RunPatches } from './run-patches.js';

/**
 * Refuse an execution that must not run, before it records anything but its patch decisions:
 * carried state that does not come from the run's own previous generation
 * (`run.carried_state_refused`), a cron schedule (`run.cron_unsupported`) or a workflow retry policy
 * (`run.retry_unsupported`). Each is a non-retryable workflow failure whose type and message are the
 * audit record in the run's Temporal history; nothing ran, so nothing was paid or stored.
 *
 * Replay: the first check is the carried-only patch's (in the baselines); the others are asked only
 * when they refuse ({@link CARRIED_BINDING_PATCH}), so a history recorded before them replays as
 * recorded.
 *
 * @throws ApplicationFailure (non-retryable) with one of the types above.
 */
export function refuseUnsupportedStart(carried: CarriedRun | undefined, runPatches: RunPatches): void {
  const info = workflowInfo();
  if (carried !== undefined) {
    const refusal = carriedStateRefusal(carried, info);
    if (
      refusal !== undefined &&
      (refusal.continued ? patched(CARRIED_BINDING_PATCH) : runPatches.on(CARRIED_ONLY_PATCH))
    )
      throw ApplicationFailure.create({
        type: 'run.carried_state_refused',
        message: refusal.message,
        nonRetryable: true,
      });
  }
  const unsupported = unsupportedStartRefusal(info);
  if (unsupported !== undefined && patched(CARRIED_BINDING_PATCH))
    throw ApplicationFailure.create({
      type: unsupported.type,
      message: unsupported.message,
      nonRetryable: true,
    });
}
