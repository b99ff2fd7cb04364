/**
 * How often a graph node may answer `retry` and how long the run waits before the next attempt.
 * The wait is the runner's durable timer (`RunContext.sleep`: a Temporal timer, status
 * `retry_scheduled`), never a busy loop. Names follow Temporal's RetryPolicy.
 */
export interface NodeRetryPolicy {
  /** Attempts of the node per visit, the first included (1 = no retry). Default 3, at most 100. */
  readonly maxAttempts?: number;
  /** Wait before the second attempt, in seconds. Default 1. */
  readonly initialIntervalSeconds?: number;
  /** Each further wait is the previous one times this (>= 1). Default 2. */
  readonly backoffCoefficient?: number;
  /** No wait is longer than this, in seconds (also caps a node's `retryAfterSeconds`). Default 60. */
  readonly maximumIntervalSeconds?: number;
}

/** The policy of a node that declares none, and the value of every field a node leaves out. */
export const DEFAULT_NODE_RETRY: Required<NodeRetryPolicy> = {
  maxAttempts: 3,
  initialIntervalSeconds: 1,
  backoffCoefficient: 2,
  maximumIntervalSeconds: 60,
};

/** The most attempts a node may declare. */
export const MAX_NODE_ATTEMPTS = 100;

/** A node's policy with the defaults filled in. */
export function nodeRetryPolicy(policy: NodeRetryPolicy | undefined): Required<NodeRetryPolicy> {
  return { ...DEFAULT_NODE_RETRY, ...policy };
}

/** What is wrong with a node's retry policy (empty when nothing); `validateGraph` reports it. */
export function retryPolicyProblems(nodeId: string, policy: NodeRetryPolicy | undefined): string[] {
  if (policy === undefined) return [];
  const p = nodeRetryPolicy(policy);
  const problems: string[] = [];
  const positive = (v: number): boolean => Number.isFinite(v) && v > 0;
  if (!Number.isInteger(p.maxAttempts) || p.maxAttempts < 1 || p.maxAttempts > MAX_NODE_ATTEMPTS)
    problems.push(`node ${nodeId}: retry.maxAttempts must be an integer from 1 to ${MAX_NODE_ATTEMPTS}`);
  if (!positive(p.initialIntervalSeconds))
    problems.push(`node ${nodeId}: retry.initialIntervalSeconds must be a positive number`);
  if (!Number.isFinite(p.backoffCoefficient) || p.backoffCoefficient < 1)
    problems.push(`node ${nodeId}: retry.backoffCoefficient must be a number >= 1`);
  if (!positive(p.maximumIntervalSeconds) || p.maximumIntervalSeconds < p.initialIntervalSeconds)
    problems.push(
      `node ${nodeId}: retry.maximumIntervalSeconds must be a positive number >= initialIntervalSeconds`,
    );
  return problems;
}

/**
 * Seconds to wait after attempt `attempt` (1-based) answered `retry`: the node's own
 * `retryAfterSeconds` when it is a positive number, else `initialInterval * coefficient^(attempt-1)`;
 * never more than `maximumIntervalSeconds`.
 */
export function retryDelaySeconds(
  policy: Required<NodeRetryPolicy>,
  attempt: number,
  requested: number | undefined,
): number {
  const backoff = policy.initialIntervalSeconds * policy.backoffCoefficient ** (attempt - 1);
  const wanted = requested !== undefined && Number.isFinite(requested) && requested > 0 ? requested : backoff;
  return Math.min(wanted, policy.maximumIntervalSeconds);
}
