import { HarnessError } from '../../contract/errors.js';
import type { GraphNode } from './graph-definition.js';
import { nodeRetryPolicy, retryDelaySeconds } from './graph-node-retry.js';
import type { StatePatchCheck } from './graph-state-patch.js';
import type { RunContext } from './run-context.js';
import { RunStop } from './run-stop.js';

/**
 * A node's failure as the run records it: a `step.failed` event with the node, its attempt and the
 * code (and `status: 'failed_terminal'` under the step contracts), then the stop that ends the run
 * `failed` with that code (returned for the caller to throw). Never throws.
 */
export function nodeFailure(
  ctx: RunContext,
  node: string,
  attempt: number,
  code: string,
  message: string,
  details: Record<string, unknown> = {},
): RunStop {
  const status = ctx.stepContracts() ? { status: 'failed_terminal' } : {};
  ctx.emit('step.failed', { stepId: node, attempt, code, message, ...details, ...status });
  return new RunStop('failed', { code, message, details: { node, attempt, ...details } });
}

/**
 * Check a node's state patch (node checks on): a patch that does not fit the state schema fails the
 * node with `graph.invalid_state_patch` and is not applied.
 * @throws RunStop `graph.invalid_state_patch`.
 */
export function checkPatch(
  ctx: RunContext,
  check: StatePatchCheck,
  node: string,
  attempt: number,
  patch: unknown,
): void {
  const issues = check(patch);
  if (issues === undefined) return;
  throw nodeFailure(
    ctx,
    node,
    attempt,
    'graph.invalid_state_patch',
    `node ${node} returned a state patch that does not fit the graph's state schema: ${issues
      .map((i) => `${i.path || '(patch)'}: ${i.message}`)
      .join('; ')}`,
    { issues },
  );
}

/**
 * The pause before the next attempt of `node`, whose attempt `attempt` answered `retry` or, with
 * `failure`, failed in a way its retry policy covers (`graph.node_deadline`; node checks on): its retry
 * policy's backoff, or the node's own `retryAfterSeconds` within it. Under the step contracts the
 * attempt is first recorded as `step.failed` with `status: 'failed_retryable'` (code `failure.code`,
 * or `graph.node_retry` for a `retry` answer).
 * @throws RunStop `failure.code`, else `graph.attempts_exhausted` (after `step.failed`, `failed_terminal`
 *   under the step contracts) when that was its last attempt.
 */
export function nextAttemptDelay(
  ctx: RunContext,
  node: GraphNode<unknown>,
  attempt: number,
  retryAfterSeconds: number | undefined,
  failure?: { readonly code: string; readonly message: string },
): number {
  const policy = nodeRetryPolicy(node.retry);
  if (attempt >= policy.maxAttempts)
    throw nodeFailure(
      ctx,
      node.id,
      attempt,
      failure?.code ?? 'graph.attempts_exhausted',
      failure?.message ?? `node ${node.id} asked to retry after its last attempt (${policy.maxAttempts})`,
      { maxAttempts: policy.maxAttempts },
    );
  if (ctx.stepContracts())
    ctx.emit('step.failed', {
      stepId: node.id,
      attempt,
      code: failure?.code ?? 'graph.node_retry',
      message: failure?.message ?? `node ${node.id} asked to retry`,
      status: 'failed_retryable',
    });
  return retryDelaySeconds(policy, attempt, retryAfterSeconds);
}

/**
 * The error a node that answered `failed` ends the run with: its own code and message (default
 * `graph.node_failed`); with the node checks a RunStop after `step.failed`, else a HarnessError.
 * Returned for the caller to throw; never throws.
 */
export function failedNode(
  ctx: RunContext,
  node: string,
  attempt: number,
  failure: { readonly code: string; readonly message: string } | undefined,
  checks: boolean,
): Error {
  const code = failure?.code ?? 'graph.node_failed';
  const message = failure?.message ?? `node ${node} failed`;
  if (checks) return nodeFailure(ctx, node, attempt, code, message);
  return new HarnessError(code, message);
}
