import {
  policyVersionOf,
  type Policy,
  type PolicyDecision,
  type PolicyFacts,
  type PolicyRequest,
} from '../../../src/workflows/index.js';
import { RETAIL_FACTS as F } from './retail-facts.js';
import { retailToolRule, type RetailToolRule } from './retail-policy-rules.js';
import { RetailReasonCodes as R, type RetailReasonCode } from './retail-reason-codes.js';
import { RETAIL_TOOL_VERSION } from './retail-tool-names.js';

/**
 * `retail.policy@v1`: τ²-bench's retail policy (policy.md) over the verified facts of `retailFacts`,
 * with the rules of `RETAIL_TOOL_RULES`. Pure, synchronous, deterministic; sandbox-safe.
 *
 * - Presentation (no arguments): a write is hidden until the customer is authenticated
 *   (`retail.not_authenticated`); everything else retail is shown (`retail.read_allowed`,
 *   `retail.write_presented`): dispatch decides on the arguments.
 * - Dispatch: before authentication only the rule's `beforeAuthentication` tools run; then the tool's
 *   checks run in order and the first failure is a `deny` with its code. A read that passes is
 *   `allow` (`retail.read_allowed`); a write that passes is `require_confirmation`
 *   (`retail.customer_confirmation`: policy.md's explicit "yes" to the action's details).
 * - A tool outside the retail table, of another version, or whose registered effect differs from the
 *   table's is denied at both stages (`retail.unknown_tool`): fail closed.
 *
 * Failure semantics: never throws; every decision carries one valid custom reason code, no
 * obligations and no expiry, so the harness's decision checks accept it. Missing facts count as not
 * verified (a refusal), never as a pass. `authorization` is left to the default rules.
 */
export class RetailPolicy implements Policy {
  readonly name = 'retail.policy';
  readonly version = 'v1';

  evaluate(req: PolicyRequest): PolicyDecision {
    const rule = retailToolRule(req.tool.name);
    if (rule === undefined || req.tool.version !== RETAIL_TOOL_VERSION || req.tool.effect !== rule.effect) {
      return this.decision('deny', R.unknownTool);
    }
    const facts = req.facts ?? {};
    const authenticated = isAuthenticated(facts);
    if (req.stage === 'presentation') {
      if (rule.effect === 'read') return this.decision('allow', R.readAllowed);
      return authenticated
        ? this.decision('allow', R.writePresented)
        : this.decision('deny', R.notAuthenticated);
    }
    const refusal = refusalOf(rule, req.args ?? {}, facts, authenticated);
    if (refusal !== undefined) return this.decision('deny', refusal);
    return rule.effect === 'write'
      ? this.decision('require_confirmation', R.customerConfirmation)
      : this.decision('allow', R.readAllowed);
  }

  private decision(decision: PolicyDecision['decision'], code: RetailReasonCode): PolicyDecision {
    return { decision, policyVersion: policyVersionOf(this), reasonCodes: [code], obligations: [] };
  }
}

/** The policy instance apps register. */
export const retailPolicy: Policy = new RetailPolicy();

/** The customer is authenticated: `user.authenticated` is true and `user.id` names them. */
function isAuthenticated(facts: PolicyFacts): boolean {
  return facts[F.userAuthenticated] === true && typeof facts[F.userId] === 'string';
}

/** The code refusing the call, or undefined when every check of its rule holds. */
function refusalOf(
  rule: RetailToolRule,
  args: Readonly<Record<string, unknown>>,
  facts: PolicyFacts,
  authenticated: boolean,
): RetailReasonCode | undefined {
  if (!authenticated) return rule.beforeAuthentication ? undefined : R.notAuthenticated;
  for (const check of rule.checks) {
    const code = check(args, facts);
    if (code !== undefined) return code;
  }
  return undefined;
}
