import { sha256Hex } from '../../contract/sha256.js';
import { canonicalJson } from '../../contract/canonical-json.js';
import type { CarriedRun } from './carried-run.js';

/**
 * Where carried state came from: the generation that continued as new, and a digest of what it
 * handed over. Written by that generation ({@link sealCarried}), checked by the next
 * ({@link carriedStateRefusal}).
 *
 * The binding is what makes carried state unforgeable by a starter: the previous generation's run id
 * is made by the server when that generation starts, after every argument of the first start is
 * fixed, so no starter can know it. A cron run and a workflow retry get the starter's original
 * arguments again (with `continuedFromExecutionRunId` set to the run before them), so forged carried
 * state named there can never match it.
 */
export interface CarriedOrigin {
  /** Run id of the generation that continued as new (the next one's `continuedFromExecutionRunId`). */
  readonly runId: string;
  /** The run's first execution run id (the same for every generation of one run). */
  readonly firstExecutionRunId: string;
  /** `sha256:<hex>` of the canonical JSON of the envelope without `origin`. */
  readonly digest: string;
}

/** What a generation knows of itself (a subset of `workflowInfo()`). */
export interface GenerationInfo {
  readonly runId: string;
  readonly firstExecutionRunId: string;
  readonly continuedFromExecutionRunId?: string | undefined;
  readonly cronSchedule?: string | undefined;
  readonly attempt: number;
  readonly retryPolicy?: unknown;
}

/** The digest {@link CarriedOrigin.digest} holds: of the envelope without its origin. */
export function carriedDigest(carried: Omit<CarriedRun, 'origin'>): string {
  const { origin: _origin, ...rest } = carried as CarriedRun;
  return `sha256:${sha256Hex(canonicalJson(rest))}`;
}

/** The envelope a generation hands to the next, bound to itself. */
export function sealCarried(carried: Omit<CarriedRun, 'origin'>, self: GenerationInfo): CarriedRun {
  return {
    ...carried,
    origin: {
      runId: self.runId,
      firstExecutionRunId: self.firstExecutionRunId,
      digest: carriedDigest(carried),
    },
  };
}

/** Why carried state was refused: `continued` is false when no continue-as-new brought it at all. */
export interface CarriedRefusal {
  readonly continued: boolean;
  readonly message: string;
}

/**
 * Whether this generation may take `carried`: only from its own run's previous generation. Refused
 * (with the reason) when nothing continued into this execution, when it is a cron run or a workflow
 * retry (both receive the first start's arguments again), and, when the state names its origin, when
 * the origin is another run or generation or the digest does not match the state.
 *
 * Carried state without an origin comes from a generation of a build before the binding (a run in
 * flight across the upgrade); it is taken when everything else holds. A starter cannot reach that
 * path: a direct start, a signal-with-start or a Schedule has no previous run, and a reset keeps the
 * reset run's own first arguments.
 *
 * Pure: never throws (a value that is not JSON data fails the digest and is refused).
 */
export function carriedStateRefusal(carried: CarriedRun, self: GenerationInfo): CarriedRefusal | undefined {
  if (self.continuedFromExecutionRunId === undefined)
    return { continued: false, message: "carried state is accepted only from the run's own continue-as-new" };
  const refused = (message: string): CarriedRefusal => ({ continued: true, message });
  if (self.cronSchedule !== undefined && self.cronSchedule !== '')
    return refused('a cron run gets the first start arguments again: it takes no carried state');
  if (self.attempt > 1)
    return refused('a workflow retry gets the first start arguments again: it takes no carried state');
  const origin = (carried as { origin?: unknown }).origin;
  if (origin === undefined) return undefined;
  if (typeof origin !== 'object' || origin === null) return refused('carried state has a malformed origin');
  const o = origin as Partial<Record<keyof CarriedOrigin, unknown>>;
  if (o.runId !== self.continuedFromExecutionRunId)
    return refused('carried state was handed over by another execution than the one this continues');
  if (o.firstExecutionRunId !== self.firstExecutionRunId)
    return refused('carried state belongs to another run under this workflow id');
  let digest: string;
  try {
    digest = carriedDigest(carried);
  } catch {
    return refused('carried state is not JSON data');
  }
  if (o.digest !== digest) return refused('carried state does not match the digest its generation sealed');
  return undefined;
}

/**
 * Why this execution must not run at all: `agentRun` supports neither cron schedules nor workflow
 * retry policies (docs/security.md). A run never fails for a business reason (it ends in a typed
 * status), so a retry would only start it over under the same workflow id; recurring runs are
 * started by a Temporal Schedule, each as a run of its own.
 */
export function unsupportedStartRefusal(self: GenerationInfo): { type: string; message: string } | undefined {
  if (self.cronSchedule !== undefined && self.cronSchedule !== '')
    return {
      type: 'run.cron_unsupported',
      message: `agentRun does not run on a cron schedule (${self.cronSchedule.slice(0, 100)}): start recurring runs with a Temporal Schedule`,
    };
  if (self.retryPolicy !== undefined)
    return {
      type: 'run.retry_unsupported',
      message:
        'agentRun does not take a workflow retry policy: a run ends in a typed status, and a failed start is refused for good',
    };
  return undefined;
}
