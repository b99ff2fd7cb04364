import type { PolicyDecision } from '../../contract/policy-decision.js';
import { PolicyDecisionSchema } from '../../contract/policy-decision.js';
import type { ToolDefinition } from '../../contract/tool.js';
import { decisionProblems } from './decision-codec.js';
import { isDecisionExpired } from './decision-time.js';
import type { Policy, PolicyFacts, PolicyRequest, PolicySubject } from './policy.js';
import { policyVersionOf } from './policy.js';
import { ReasonCodes } from './reason-codes.js';

/** A tool hidden from the model, with the decision that hid it (for the audit event). */
export interface ExcludedTool {
  name: string;
  version: string;
  decision: PolicyDecision;
}

/** Result of {@link presentTools}: tools in input order. */
export interface ToolPresentation {
  visible: ToolDefinition[];
  excluded: ExcludedTool[];
}

/**
 * Ask `policy` at the presentation stage for every definition. A tool stays visible unless the
 * decision is `deny`; `require_confirmation` and `require_human` stay visible because they are
 * settled at dispatch. Never throws: a policy that throws or returns an unfit decision hides the
 * tool with a `deny` (`policy.evaluation_failed` / `policy.decision_invalid`), checked exactly as in
 * {@link authorizeDispatch}.
 */
export function presentTools(
  definitions: readonly ToolDefinition[],
  policy: Policy,
  now: string,
  facts?: PolicyFacts,
  subject?: PolicySubject,
): ToolPresentation {
  const visible: ToolDefinition[] = [];
  const excluded: ExcludedTool[] = [];
  for (const definition of definitions) {
    const request: PolicyRequest = { stage: 'presentation', tool: toolRef(definition), now };
    if (facts !== undefined) request.facts = facts;
    if (subject !== undefined) request.subject = subject;
    const decision = decide(policy, request);
    if (decision.decision === 'deny')
      excluded.push({ name: definition.name, version: definition.version, decision });
    else visible.push(definition);
  }
  return { visible, excluded };
}

/**
 * Ask `policy` at the dispatch stage for one call whose arguments already passed schema validation.
 * Never throws; fails closed: a throwing policy gives `deny` with `policy.evaluation_failed`, an
 * unfit decision (bad schema, codes, obligations or expiry, or a `policyVersion` other than the
 * policy's own `name@version`) gives `deny` with
 * `policy.decision_invalid`, and a decision already expired at `now` gives `deny` with
 * `policy.decision_expired`. Deny decisions of the harness carry the policy's `name@version`.
 */
export function authorizeDispatch(
  policy: Policy,
  definition: ToolDefinition,
  args: Readonly<Record<string, unknown>>,
  now: string,
  facts?: PolicyFacts,
  subject?: PolicySubject,
): PolicyDecision {
  const request: PolicyRequest = { stage: 'dispatch', tool: toolRef(definition), args, now };
  if (facts !== undefined) request.facts = facts;
  if (subject !== undefined) request.subject = subject;
  return decide(policy, request);
}

/**
 * A decision given earlier (for example one awaiting confirmation) checked again at `now`: the
 * same decision while it holds, otherwise a `deny` with `policy.decision_expired` under the same
 * `policyVersion`. Never throws: an unparsable time counts as expired.
 */
export function recheckDecision(decision: PolicyDecision, now: string): PolicyDecision {
  let expired: boolean;
  try {
    expired = isDecisionExpired(decision, now);
  } catch {
    expired = true;
  }
  return expired ? harnessDeny(decision.policyVersion, ReasonCodes.decisionExpired) : decision;
}

function decide(policy: Policy, request: PolicyRequest): PolicyDecision {
  const version = policyVersionOf(policy);
  let raw: unknown;
  try {
    raw = policy.evaluate(request);
  } catch {
    return harnessDeny(version, ReasonCodes.evaluationFailed);
  }
  const parsed = PolicyDecisionSchema.safeParse(raw);
  if (!parsed.success || parsed.data.policyVersion !== version || decisionProblems(parsed.data).length > 0) {
    return harnessDeny(version, ReasonCodes.decisionInvalid);
  }
  return recheckDecision(parsed.data, request.now);
}

function harnessDeny(policyVersion: string, code: string): PolicyDecision {
  return { decision: 'deny', policyVersion, reasonCodes: [code], obligations: [] };
}

function toolRef(definition: ToolDefinition): PolicyRequest['tool'] {
  return { name: definition.name, version: definition.version, effect: definition.effect };
}
