import { DEFAULT_AUTHORIZATION, approvalRuleFor, type AuthorizationRules } from '../workflows/index.js';
import type { PendingAction } from '../contract/pending-action.js';
import type { AgentRunComposition } from '../workflows/index.js';
import type { RunView } from '../contract/run-view.js';
import type { Caller } from './caller-identity.js';

/** A decision as the gate judges it (the API's decisions plus a cancellation). */
export type GateDecision =
  'approve' | 'reject' | 'confirm' | 'reconcile' | 'input' | 'cancel' | 'request_more_info';

/** What the service knows of a run when it judges a decision: from the run's `state` query. */
export interface DecisionContext {
  /** The run's user (who requested it): never approves; the customer who confirms. */
  readonly runUser: string | undefined;
  /** The run's policy's authorization rules; undefined when this service does not know the policy. */
  readonly rules: AuthorizationRules | undefined;
  readonly pending: PendingAction | null | undefined;
  /** The run waits for its customer's confirmation (`confirm.user.*`), not an approval. */
  readonly customerWait: boolean;
  /** The arguments of the call that waits, when the run shows them (signed runs). */
  readonly pendingArguments: Readonly<Record<string, unknown>> | undefined;
  /** Verified decisions so far (action, decision, principal). */
  readonly decisions: readonly { actionId: string; decision: string; principal: string }[];
}

/** Why the service refuses a decision before it reaches the run: HTTP 403 with this code. */
export interface GateRefusal {
  readonly code: string;
  readonly message: string;
}

/** The authorization rules of a pinned policy (`name@version`), or undefined when the app does not know it. */
export function rulesOf(
  composition: AgentRunComposition,
  policyRef: string | null | undefined,
): AuthorizationRules | undefined {
  const [name = '', version = ''] = (policyRef ?? '').split('@');
  const policy = composition.policies.find(name, version);
  if (!policy) return undefined;
  return policy.authorization ?? DEFAULT_AUTHORIZATION;
}

/** The gate's view of a run from its `state` query. */
export function decisionContext(
  composition: AgentRunComposition,
  view: RunView,
  runUser: string | undefined,
): DecisionContext {
  return {
    runUser: runUser ?? view.userId,
    rules: rulesOf(composition, view.versions?.policy),
    pending: view.pendingAction,
    customerWait: view.humanRequest?.allowedDecisions.includes('confirm') === true,
    pendingArguments: view.pendingArguments,
    decisions: view.decisions ?? [],
  };
}

/**
 * The roles that may approve or reject the pending call. With its arguments known, exactly the
 * first matching rule's; without them, every rule that could match (a rule with argument conditions
 * read as matching), so the gate never refuses what the run could accept. Undefined: no rule matches.
 */
function approverRoles(rules: AuthorizationRules, ctx: DecisionContext): Set<string> | undefined {
  const tool = ctx.pending?.tool;
  if (ctx.pendingArguments !== undefined) {
    const rule = approvalRuleFor(rules, tool, ctx.pendingArguments);
    return rule ? new Set(rule.roles) : undefined;
  }
  const roles = new Set<string>();
  let any = false;
  for (const rule of rules.approve) {
    const unconditional = { ...rules, approve: [{ ...rule, when: { ...rule.when, args: undefined } }] };
    if (approvalRuleFor(unconditional, tool, undefined)) {
      any = true;
      rule.roles.forEach((r) => roles.add(r));
    }
  }
  return any ? roles : undefined;
}

/**
 * Whether the service refuses this decision by this caller before it reaches the run (docs/api.md,
 * "Decisions"). It judges by the token's kind and roles (the identity provider's word; the service
 * vouches for nothing else) and the run's policy rules when it knows them, and refuses only what the
 * run would certainly refuse too: a customer approving, anyone but the run's customer confirming,
 * the requester approving, a caller without a role the matching rule asks for, an approver approving
 * the same action twice. Everything it lets through the run still checks in full (signature, registry,
 * four-eyes). Pure; never throws.
 * @returns the refusal (403) or undefined.
 */
export function gateDecision(
  caller: Caller,
  ctx: DecisionContext,
  decision: GateDecision,
): GateRefusal | undefined {
  const isRequester = ctx.runUser !== undefined && caller.user === ctx.runUser;
  const hasRole = (roles: Iterable<string>) => {
    const set = new Set(roles);
    return caller.roles.some((r) => set.has(r));
  };
  const notTheCustomer = (verb: string): GateRefusal | undefined =>
    caller.kind === 'customer' && isRequester
      ? undefined
      : { code: 'decision.not_the_customer', message: `only the run's customer may ${verb}` };
  switch (decision) {
    case 'confirm':
      if (!ctx.customerWait)
        return {
          code: 'decision.not_a_confirmation',
          message: 'this action waits for an approval, not a customer confirmation',
        };
      return notTheCustomer('confirm');
    case 'approve':
    case 'reject':
    case 'request_more_info': {
      if (ctx.customerWait && decision === 'request_more_info')
        return { code: 'decision.not_allowed', message: 'a customer confirmation takes confirm or reject' };
      if (ctx.customerWait)
        return decision === 'approve'
          ? {
              code: 'decision.customer_confirmation_required',
              message: 'this action waits for the customer to confirm',
            }
          : notTheCustomer('decline');
      if (caller.kind === 'customer')
        return {
          code: 'decision.customer_cannot_approve',
          message: 'a customer confirms; it never approves',
        };
      if (isRequester)
        return {
          code: 'decision.requester_cannot_approve',
          message: `${caller.user} requested this run and may not decide its actions`,
        };
      if (ctx.rules) {
        const roles = approverRoles(ctx.rules, ctx);
        if (!roles)
          return {
            code: 'decision.no_rule',
            message: 'no authorization rule lets anyone decide this action',
          };
        if (!hasRole(roles))
          return {
            code: 'decision.role_missing',
            message: `deciding this action needs one of the roles ${[...roles].join(', ')}`,
          };
      }
      const actionId = ctx.pending?.actionId;
      if (
        decision === 'approve' &&
        actionId !== undefined &&
        ctx.decisions.some(
          (d) => d.actionId === actionId && d.decision === 'approve' && d.principal === caller.user,
        )
      )
        return {
          code: 'decision.same_approver',
          message: `${caller.user} already approved this action; it needs another approver`,
        };
      return undefined;
    }
    case 'reconcile':
      if (caller.kind === 'customer' || (ctx.rules && !hasRole(ctx.rules.reconcile.roles)))
        return { code: 'decision.role_missing', message: `${caller.user} may not reconcile this run` };
      return undefined;
    case 'input':
    case 'cancel': {
      const verb = decision === 'input' ? 'answer' : 'cancel';
      if (!ctx.rules)
        return caller.kind === 'customer' && !isRequester
          ? { code: 'decision.role_missing', message: `${caller.user} may not ${verb} this run` }
          : undefined;
      const who = decision === 'input' ? ctx.rules.input : ctx.rules.cancel;
      if ((who.requester && isRequester) || (caller.kind !== 'customer' && hasRole(who.roles)))
        return undefined;
      return { code: 'decision.role_missing', message: `${caller.user} may not ${verb} this run` };
    }
  }
}

/**
 * Whether the caller may take the approval the run waits for now (the approval inbox shows its
 * buttons then, and an approver's scope includes the run): an approval or confirmation the gate
 * lets through. A hint for the page; the run still checks every decision.
 */
export function mayTakePending(caller: Caller, ctx: DecisionContext): boolean {
  const p = ctx.pending;
  if (!p || (p.kind !== 'confirmation' && p.kind !== 'human')) return false;
  return gateDecision(caller, ctx, ctx.customerWait ? 'confirm' : 'approve') === undefined;
}
