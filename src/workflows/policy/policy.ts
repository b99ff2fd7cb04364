import type { PolicyDecision } from '../../contract/policy-decision.js';
import type { ToolEffect } from '../../contract/tool.js';
import type { AuthorizationRules } from '../authz/authorization-rules.js';
import { versionedName } from '../../contract/versioned-name.js';
import type { RetrievalAccess } from '../../contract/retrieval.js';

/** When a policy is asked: before a tool is shown to the model, or before a call is dispatched. */
export type PolicyStage = 'presentation' | 'dispatch';

/** Verified facts the runner holds, e.g. `{ 'order.owner_verified': true }`. Never model text. */
export type PolicyFacts = Readonly<Record<string, string | number | boolean>>;

/**
 * Who the run was started for: the tenant and user of the principal that started it (the run service
 * writes them from the caller's verified identity; other starters name them).
 */
export interface PolicySubject {
  readonly tenantId?: string;
  readonly userId?: string;
  /**
   * Whether the requester, tenant and roles are verified facts (a signed start, docs/authorization.md
   * "Who a run is for"). `false`: an anonymous run (no user or tenant). Absent: a run started before
   * identities, whose `tenantId`/`userId` are what its starter typed.
   */
  readonly verified?: boolean;
  /** The verified requester's kind and roles. */
  readonly kind?: string;
  readonly roles?: readonly string[];
}

/** What a policy decides on. Everything in it is trusted: the tool identity and effect come from the registry. */
export interface PolicyRequest {
  stage: PolicyStage;
  tool: { name: string; version: string; effect: ToolEffect };
  /** Schema-validated model arguments; absent at presentation. */
  args?: Readonly<Record<string, unknown>>;
  /** ISO time from the workflow clock; policies never read a clock themselves. */
  now: string;
  facts?: PolicyFacts;
  /** The run's tenant and user, when the run names them. */
  subject?: PolicySubject;
}

/**
 * A policy: a pure, synchronous, deterministic function of the request. It runs inside the
 * Temporal workflow sandbox, so it does no I/O and reads no clock or randomness.
 *
 * A policy may throw on a broken request (for example an unparsable `now`); callers such as
 * {@link authorizeDispatch} turn a throw into a `deny` with `policy.evaluation_failed`.
 */
export interface Policy {
  readonly name: string;
  readonly version: string;
  /**
   * Who may decide what under this policy (roles, distinct approvers, the requester), checked for runs
   * that verify signed decisions. Absent: the default rules (`DEFAULT_AUTHORIZATION`).
   */
  readonly authorization?: AuthorizationRules;
  /**
   * Build and check what the policy builds on first use (`RulesPolicy.onFirstUse`), throwing
   * what that throws. `composeAgentRun` (the worker process at start, `harness start`) calls it for
   * every policy; a run for its own policy. Absent: nothing deferred.
   */
  check?(): void;
  evaluate(req: PolicyRequest): PolicyDecision;
  /** What the model may see of the run's context (the context guardrail); absent: the defaults. */
  readonly context?: ContextPolicy;
}

/**
 * The context guardrail's choices of a policy (docs/guardrails.md, "Context guardrail"). Applied on
 * runs since `agent-run-context-priority-v1` (request packages `context/v4`).
 */
export interface ContextPolicy {
  /**
   * Tool output the input guardrail flags (verdict `flag` or `block`): `fence` (default) sends it as
   * fenced untrusted data; `withhold` sends a reference and a notice instead, never the output.
   */
  readonly flaggedToolOutput?: 'fence' | 'withhold';
  /**
   * Retrieve references for each model call (the worker's retrieval port, docs/context.md
   * "Retrieval"): at most `limit` documents of the run's verified tenant, none labelled above
   * `maxAccess`. Only for runs whose tenant is verified (a signed start); absent: no retrieval.
   */
  readonly retrieval?: { readonly limit: number; readonly maxAccess: RetrievalAccess };
}

/** The `policyVersion` string a policy writes into its decisions: `name@version`. */
export function policyVersionOf(policy: Pick<Policy, 'name' | 'version'>): string {
  return versionedName(policy.name, policy.version);
}
