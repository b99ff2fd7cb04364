import {
  ActivityCancellationType,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { PinnedModelRoute } from '../../contract/model-routes.js';

/**
 * Activity options by kind, in one place. Write tools are never retried (maximumAttempts: 1) and
 * carry a heartbeat timeout so a lost worker is noticed; reads and model calls retry with backoff.
 */
export interface ActivityTimeouts {
  readonly writeHeartbeatSeconds: number;
  readonly readHeartbeatSeconds: number;
  readonly modelHeartbeatSeconds: number;
}

export const DEFAULT_TIMEOUTS: ActivityTimeouts = {
  writeHeartbeatSeconds: 30,
  readHeartbeatSeconds: 30,
  modelHeartbeatSeconds: 120,
};

export function writeToolOptions(t: ActivityTimeouts): ActivityOptions {
  return {
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: `${t.writeHeartbeatSeconds} seconds`,
    retry: { maximumAttempts: 1 },
    // A cancelled write is waited for (the executor sees the abort through its heartbeat) so the
    // outcome can be settled from the evidence store afterwards, never guessed while it still runs.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
}

export function readToolOptions(t: ActivityTimeouts): ActivityOptions {
  return {
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: `${t.readHeartbeatSeconds} seconds`,
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: 5,
    },
  };
}

/**
 * A fast try as a local activity: a fast read's (docs/runner.md, "Fast path"), bounded by the tool's
 * `fast.timeoutMs`, or a model call's on a fast route (docs/models.md, "Fast model routes"), bounded
 * by the route's. Not retried here (the regular activity, with its retries, takes over when it
 * fails). A worker lost during it loses the workflow task; the next worker runs the try again.
 */
export function fastReadOptions(timeoutMs: number): LocalActivityOptions {
  return { startToCloseTimeout: timeoutMs, retry: { maximumAttempts: 1 } };
}

export function modelOptions(t: ActivityTimeouts): ActivityOptions {
  return {
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: `${t.modelHeartbeatSeconds} seconds`,
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '60 seconds',
      maximumAttempts: 6,
    },
  };
}

/**
 * A model call on a pinned route version (docs/models.md): its attempts, backoff and timeouts come
 * from the route; the heartbeat from the route when it sets one, else the run's.
 */
export function routeModelOptions(t: ActivityTimeouts, route: PinnedModelRoute): ActivityOptions {
  return {
    startToCloseTimeout: `${route.callSeconds} seconds`,
    heartbeatTimeout: `${route.heartbeatSeconds ?? t.modelHeartbeatSeconds} seconds`,
    retry: {
      initialInterval: route.initialRetryMs,
      backoffCoefficient: 2,
      maximumInterval: Math.max(route.maxRetryMs, route.initialRetryMs),
      maximumAttempts: route.maxAttempts,
    },
  };
}

/**
 * Short bookkeeping activities (snapshot, events): a lost worker is noticed within 20 s because they
 * are short, not through heartbeats.
 */
export const BOOKKEEPING_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 10 },
};

/**
 * The same bookkeeping as local activities (the snapshot at the start, event flushes): they run in
 * the worker that holds the workflow task, with no activity task round trip through the server; only
 * a marker with the result is recorded. Idempotent, so a retry after a lost worker is harmless.
 */
export const LOCAL_BOOKKEEPING_OPTIONS: LocalActivityOptions = {
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 10 },
};

/**
 * Settling a lost write (evidence store, then the tool's read-only reconciler): retried, since it
 * changes nothing; the reconciler heartbeats through its ToolContext.
 */
export const RESOLVE_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 10,
  },
};
