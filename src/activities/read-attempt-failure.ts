import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { AnyToolCallActivityInput } from '../contract/activity-interfaces.js';
import type { EvidenceStore, InvocationResult } from './store/index.js';

/**
 * Record the outcome of a read's attempt whose executor threw something other than a harness error
 * (runs since `agent-run-step-contracts-v1`, `ToolCallInput.recordFailedAttempts`): `failed_retryable`
 * when the read will run again (a retryable error with attempts left under the activity's retry
 * policy, or a fast read's local activity, which the regular read activity always follows), else
 * `failed_terminal`. The code is the error's type (an ApplicationFailure's) or
 * `tool.read_failed`.
 * Failure semantics: never throws; the record is evidence only, so a store that refuses it changes
 * nothing about the attempt (the caller rethrows the executor's error either way).
 */
export async function recordFailedReadAttempt(
  store: EvidenceStore,
  input: AnyToolCallActivityInput,
  attempt: number,
  err: unknown,
): Promise<void> {
  const info = Context.current().info;
  const max = info.retryPolicy?.maximumAttempts ?? 0;
  const nonRetryable = err instanceof ApplicationFailure && err.nonRetryable;
  // A fast read's local activity is always followed by the regular read activity (docs/runner.md,
  // "Fast path"); otherwise Temporal's own attempt counts (the recorded one may be higher after one).
  const retried = info.isLocal || (!nonRetryable && (max === 0 || info.attempt < max));
  const result: InvocationResult = {
    runId: input.runId,
    seq: input.seq,
    attempt,
    status: retried ? 'failed_retryable' : 'failed_terminal',
    errorCode: (err instanceof ApplicationFailure && err.type) || 'tool.read_failed',
    errorMessage: (err instanceof Error ? err.message : String(err)).slice(0, 2000),
    artifactIds: [],
    recordedAt: new Date().toISOString(),
    source: 'executor',
  };
  await store.recordResult(result, []).catch(() => undefined);
}
