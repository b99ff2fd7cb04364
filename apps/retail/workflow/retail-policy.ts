import {
  policyVersionOf,
  type Policy,
  type PolicyDecision,
  type PolicyFacts,
  type PolicyRequest,
} from '../../../src/workflows/index.js';
import { RETAIL_FACTS as F } from './retail-facts.js';
import { retailToolRule, type RetailPolicyVersion, type RetailToolRule } from './retail-policy-rules.js';
import { RetailReasonCodes as R, type RetailReasonCode } from './retail-reason-codes.js';
import { RETAIL_TOOL_VERSION } from './retail-tool-names.js';

/**
 * `retail.policy@v2`: τ²-bench's retail policy (policy.md) over the verified facts of `retailFacts`,
 * with the rules of `RETAIL_TOOL_RULES`; `retail.policy@v1` (the runs that pinned it) the same with
 * `RETAIL_TOOL_RULES_V1`, which reads any order once the customer is authenticated. Pure, synchronous,
 * deterministic; sandbox-safe.
 *
 * - Presentation (no arguments): a write is hidden until the customer is authenticated
 *   (`retail.not_authenticated`); everything else retail is shown (`retail.read_allowed`,
 *   `retail.write_presented`): dispatch decides on the arguments.
 * - Dispatch: before authentication only the rule's `beforeAuthentication` tools run; then the tool's
 *   checks run in order and the first failure is a `deny` with its code. A read that passes is
 *   `allow` (`retail.read_allowed`). A write that passes needs policy.md's explicit "yes" to the
 *   action's details (`retail.customer_confirmation`): in a run whose requester is verified (a signed
 *   start) it is `allow` with the obligation `confirm.user.v1`, so the run waits for that customer's
 *   own confirmation (decision type `customer_confirmation`) and nobody else can give it; in an
 *   anonymous run (no customer to ask) it is `require_confirmation`, a person confirms on the
 *   customer's behalf.
 * - A tool outside the retail table, of another version, or whose registered effect differs from the
 *   table's is denied at both stages (`retail.unknown_tool`): fail closed.
 *
 * Failure semantics: never throws; every decision carries one valid custom reason code, at most the
 * `confirm.user.v1` obligation and no expiry, so the harness's decision checks accept it. Missing facts count as not
 * verified (a refusal), never as a pass. `authorization` is left to the default rules.
 */
/** The obligation of a write in a run whose customer is verified: the customer's own confirmation. */
export const CUSTOMER_CONFIRMATION = 'confirm.user.v1';

export class RetailPolicy implements Policy {
  readonly name = 'retail.policy';

  constructor(readonly version: RetailPolicyVersion = 'v2') {}

  evaluate(req: PolicyRequest): PolicyDecision {
    const rule = retailToolRule(req.tool.name, this.version);
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
    if (rule.effect === 'read') return this.decision('allow', R.readAllowed);
    // The customer confirms the action's details: their own decision when the run knows who they are.
    return req.subject?.verified === true
      ? this.decision('allow', R.customerConfirmation, [CUSTOMER_CONFIRMATION])
      : this.decision('require_confirmation', R.customerConfirmation);
  }

  private decision(
    decision: PolicyDecision['decision'],
    code: RetailReasonCode,
    obligations: string[] = [],
  ): PolicyDecision {
    return { decision, policyVersion: policyVersionOf(this), reasonCodes: [code], obligations };
  }
}

/** `retail.policy@v2`, what new runs pin. */
export const retailPolicy: Policy = new RetailPolicy('v2');
/** `retail.policy@v1`, kept for the runs that pinned it. */
export const retailPolicyV1: Policy = new RetailPolicy('v1');

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
