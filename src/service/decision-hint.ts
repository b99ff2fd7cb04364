import { DEFAULT_AUTHORIZATION, approvalRuleFor } from '../core/authz/authorization-rules.js';
import type { PendingAction } from '../core/runner/pending-action.js';
import type { AgentRunComposition } from '../core/workflow/agent-run-definition.js';
import type { Caller } from './caller-identity.js';

/**
 * Whether the caller may take the decision a run waits for, as far as the service can tell from the
 * run's policy rules and the caller's roles (the approval inbox shows decision buttons only then). A
 * hint, never the check: the run verifies every decision itself, with the call's arguments (rules
 * with argument conditions are read as if they match) and the approvals already given.
 */
export function mayDecide(
  composition: AgentRunComposition,
  policyRef: string | null | undefined,
  runUser: string | null | undefined,
  caller: Caller,
  pending: PendingAction | null | undefined,
): boolean {
  if (!pending || (pending.kind !== 'confirmation' && pending.kind !== 'human')) return false;
  const [name = '', version = ''] = (policyRef ?? '').split('@');
  const rules = composition.policies.find(name, version)?.authorization ?? DEFAULT_AUTHORIZATION;
  const isRequester = runUser !== null && runUser !== undefined && caller.user === runUser;
  if (pending.obligations?.some((o) => o.startsWith('confirm.user')) && caller.kind === 'customer')
    return isRequester;
  if (caller.kind === 'customer' || isRequester) return false;
  const roles = new Set<string>();
  const exact = approvalRuleFor(rules, pending.tool, undefined);
  for (const rule of rules.approve) {
    const conditional = rule.when.args !== undefined;
    if (
      rule === exact ||
      (conditional &&
        approvalRuleFor(
          { ...rules, approve: [{ ...rule, when: { ...rule.when, args: undefined } }] },
          pending.tool,
          undefined,
        ))
    )
      rule.roles.forEach((r) => roles.add(r));
  }
  return caller.roles.some((r) => roles.has(r));
}
