import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { AnyToolCallActivityInput } from '../contract/activity-interfaces.js';
import type { EvidenceStore, InvocationResult } from './store/index.js';

/**
 * Record the outcome of a read's attempt whose executor threw something other than a harness error
 * (runs since `agent-run-step-contracts-v1`, `ToolCallInput.recordFailedAttempts`): `failed_retryable`
 * when Temporal will run the activity again (a retryable error, attempts left under its retry
 * policy), else `failed_terminal`. The code is the error's type (an ApplicationFailure's) or
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
  const max = Context.current().info.retryPolicy?.maximumAttempts ?? 0;
  const nonRetryable = err instanceof ApplicationFailure && err.nonRetryable;
  const retried = !nonRetryable && (max === 0 || attempt < max);
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
