import { z } from 'zod';
import { sharedAcrossRuns } from './shared-across-runs.js';

/** Built on first use (see builtOnFirstUse). */
export const DecisionKindSchema = z.lazy(() =>
  z.enum(['allow', 'deny', 'require_confirmation', 'require_human']),
);
export type DecisionKind = z.infer<typeof DecisionKindSchema>;

/**
 * A policy decision (seed 004). Serialisable and stable: it is written to durable audit records,
 * so reason codes come from the catalogue in `src/workflows/policy/reason-codes.ts`.
 *
 * Built once per worker (see sharedAcrossRuns).
 */
export const PolicyDecisionSchema = z.lazy(
  sharedAcrossRuns('contract/policy-decision#PolicyDecisionSchema', () =>
    z.object({
      decision: DecisionKindSchema,
      /** `name@version` of the policy that decided. */
      policyVersion: z.string().min(1),
      reasonCodes: z.array(z.string().min(1)),
      /** Obligations such as `limit.refund_amount=5000`, `confirm.user.v2`, `mask.phone`. */
      obligations: z.array(z.string().min(1)),
      /** ISO time after which the decision no longer holds. */
      expiresAt: z.string().optional(),
    }),
  ),
);
export type PolicyDecision = z.infer<typeof PolicyDecisionSchema>;

/**
 * The rules a policy decision came from, named in each `policy.decided` event (`rules`) of runs since
 * `agent-run-decision-rules-v1`: the policy bundle the run pinned for its policy (docs/control-plane.md;
 * its key, the digest of its content, and the policy it fills), or the policy in code when no bundle
 * applies. With the run's pins this proves which rules allowed a call without a join to `run.created`.
 */
export type DecisionRules =
  | {
      readonly source: 'bundle';
      /** `name@vN` of the bundle. */
      readonly bundle: string;
      /** `sha256:` digest of the bundle's canonical content. */
      readonly digest: string;
      /** `name@version` of the policy in code whose rules it replaces. */
      readonly policy: string;
    }
  | {
      readonly source: 'code';
      /** `name@version` of the policy in code. */
      readonly policy: string;
    };
