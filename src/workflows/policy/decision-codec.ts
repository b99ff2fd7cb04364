import type { PolicyDecision } from '../../contract/policy-decision.js';
import { PolicyDecisionSchema } from '../../contract/policy-decision.js';
import { parseIsoTime } from './decision-time.js';
import { PolicyError } from './policy-error.js';
import { isValidObligation, isValidReasonCode } from './reason-codes.js';

/**
 * Problems that make a decision unfit for durable audit, beyond the domain schema: bad reason codes,
 * bad obligations, an empty reason list, or an `expiresAt` that is not an ISO time. Empty when fit.
 */
export function decisionProblems(decision: PolicyDecision): string[] {
  const problems: string[] = [];
  if (decision.reasonCodes.length === 0) problems.push('reasonCodes: at least one reason code is required');
  for (const code of decision.reasonCodes)
    if (!isValidReasonCode(code)) problems.push(`reasonCodes: invalid code ${code}`);
  for (const o of decision.obligations)
    if (!isValidObligation(o)) problems.push(`obligations: invalid obligation ${o}`);
  if (decision.expiresAt !== undefined) {
    try {
      parseIsoTime(decision.expiresAt);
    } catch {
      problems.push(`expiresAt: not an ISO date-time`);
    }
  }
  return problems;
}

/**
 * Parse an unknown value (for example from history or an audit record) into a decision.
 * @throws PolicyError `policy.decision_invalid` naming the problems when it is not a fit decision.
 */
export function parseDecision(value: unknown): PolicyDecision {
  const parsed = PolicyDecisionSchema.safeParse(value);
  const problems = parsed.success
    ? decisionProblems(parsed.data)
    : parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
  if (!parsed.success || problems.length > 0) {
    throw new PolicyError('policy.decision_invalid', `invalid policy decision: ${problems.join('; ')}`, {
      problems,
    });
  }
  return parsed.data;
}

/** JSON text of a decision, with keys in a fixed order so equal decisions encode equally. */
export function encodeDecision(decision: PolicyDecision): string {
  const ordered: PolicyDecision = {
    decision: decision.decision,
    policyVersion: decision.policyVersion,
    reasonCodes: [...decision.reasonCodes],
    obligations: [...decision.obligations],
  };
  if (decision.expiresAt !== undefined) ordered.expiresAt = decision.expiresAt;
  return JSON.stringify(ordered);
}

/**
 * Decode JSON text written by {@link encodeDecision}.
 * @throws PolicyError `policy.decision_invalid` for malformed JSON or an unfit decision.
 */
export function decodeDecision(json: string): PolicyDecision {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new PolicyError('policy.decision_invalid', 'policy decision is not valid JSON', {});
  }
  return parseDecision(value);
}
