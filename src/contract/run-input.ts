import { z } from 'zod';
import { sharedAcrossRuns } from './shared-across-runs.js';
import { MIN_WAIT_HISTORY_BOUND_BYTES, WAIT_HISTORY_BOUND_BYTES } from './wait-history-bound.js';

/**
 * The input of one `agentRun` workflow. Validated at the client and again in the workflow. It names
 * only things the trusted composition registered (profile, policy by name and version); it never
 * carries code, credentials or effects. A starter needs no worker composition: what the run uses is
 * pinned by the run itself from the worker that serves its start (docs/rolling-deploys.md).
 *
 * Built once per worker and shared by its runs, which all parse it (see sharedAcrossRuns).
 */
export const AgentRunInputSchema = z.lazy(
  sharedAcrossRuns('contract/run-input#AgentRunInputSchema', () => {
    const NameVersion = z
      .object({
        name: z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/, 'lowercase identifier'),
        version: z.string().regex(/^v[1-9][0-9]*$/, 'expected vN'),
      })
      .strict();
    return z
      .object({
        schemaVersion: z.literal(1),
        profile: NameVersion,
        /**
         * The policy, when not the profile's default. Only a policy the profile lists may be named
         * (`run.policy_not_allowed` otherwise): the composition, not the caller, decides what binds a run.
         */
        policy: NameVersion.optional(),
        /**
         * Legacy whole-registry pin: every worker that serves the run must have exactly this registry.
         * Omit it (the default): the run pins the definitions of its profile's tools at its start.
         */
        toolRegistryDigest: z
          .string()
          .regex(/^sha256:[0-9a-f]{64}$/)
          .optional(),
        /**
         * Model route name, e.g. `scripted/refund` or `openai/gpt-4o-mini`; the worker maps it to a
         * provider. Default: the route of the worker that serves the start, pinned for the run.
         */
        modelRoute: z.string().min(1).max(200).optional(),
        /** Digest of the worker configuration, when the starter composed with one; default: the worker's. */
        configDigest: z
          .string()
          .regex(/^sha256:[0-9a-f]{64}$/)
          .optional(),
        threadId: z.string().min(1).max(200).optional(),
        /** The run's tenant: verified by the start token (`startToken`), else only claimed. */
        tenantId: z.string().min(1).max(200).optional(),
        /** Who the run is for: verified by the start token (`startToken`), else only claimed. */
        userId: z.string().min(1).max(200).optional(),
        /**
         * A signed start (docs/authorization.md, "Who a run is for"): a compact JWS by the requester's
         * key, or a delegate's naming the person it authenticated, bound to the workflow id and the
         * digest of this input without the token. Without it the run is anonymous.
         */
        startToken: z.string().min(1).max(4_096).optional(),
        /** The task: interpreted by the profile (validated by its own schema). Bounded. */
        task: z.record(z.string(), z.unknown()),
        /** Budget overrides; unknown keys are rejected. */
        budget: z.record(z.string(), z.unknown()).optional(),
        /**
         * How long a human request stays open: an approval is then rejected as expired; since
         * `agent-run-human-request-expiry-v1` an input or reconcile request expires too (docs/signals.md).
         */
        approvalTimeoutSeconds: z
          .number()
          .positive()
          .max(30 * 24 * 3600)
          .optional(),
        /** Continue-as-new after this many history events (Temporal's own suggestion also triggers it). */
        continueAsNewAfterEvents: z.number().int().min(20).max(50_000).optional(),
        /**
         * While the run waits for a person, continue as new once the history reaches this many bytes
         * (default and most {@link WAIT_HISTORY_BOUND_BYTES}; lower only, for tests and replay fixtures).
         */
        waitHistoryBoundBytes: z
          .number()
          .int()
          .min(MIN_WAIT_HISTORY_BOUND_BYTES)
          .max(WAIT_HISTORY_BOUND_BYTES)
          .optional(),
        /**
         * Heartbeat timeouts (seconds) of tool and model activities: how soon a lost worker is noticed.
         * Defaults: writes and reads 30 s, model calls 120 s. Fault drills lower them; bounded 1..600.
         */
        activityTimeouts: z
          .object({
            writeHeartbeatSeconds: z.number().int().min(1).max(600).optional(),
            readHeartbeatSeconds: z.number().int().min(1).max(600).optional(),
            modelHeartbeatSeconds: z.number().int().min(1).max(600).optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .refine((v) => JSON.stringify(v.task).length <= 64 * 1024, {
        message: 'task is over 64 KiB',
        path: ['task'],
      });
  }),
);
export type AgentRunInput = z.infer<typeof AgentRunInputSchema>;

/** Human-readable summary of the first problems in a failed input parse. */
export function describeInputIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}
