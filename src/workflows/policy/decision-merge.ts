import type { DecisionKind, PolicyDecision } from '../../contract/policy-decision.js';
import { earliestExpiry } from './decision-time.js';

/**
 * Strictness of decision kinds, least strict first. When several decisions apply, the strictest
 * wins: `deny` > `require_human` > `require_confirmation` > `allow`.
 */
export const DECISION_STRICTNESS: readonly DecisionKind[] = [
  'allow',
  'require_confirmation',
  'require_human',
  'deny',
];

/** Rank of a kind in {@link DECISION_STRICTNESS}; higher is stricter. */
export function strictness(kind: DecisionKind): number {
  return DECISION_STRICTNESS.indexOf(kind);
}

/** Decision parts before the `policyVersion` is stamped on. */
export type DecisionParts = Omit<PolicyDecision, 'policyVersion'>;

/**
 * Merge several decisions into one (used by composition and by all-matching rules):
 * - decision: the strictest kind present;
 * - reasonCodes: the codes of the decisions that have the winning kind (they explain the
 *   outcome), deduplicated, in input order;
 * - obligations: those of every decision (each is a condition some party attached), deduplicated,
 *   in input order;
 * - expiresAt: the earliest of all expiries.
 *
 * `parts` must not be empty.
 */
export function mergeDecisions(parts: readonly DecisionParts[]): DecisionParts {
  let winner: DecisionKind = 'allow';
  for (const p of parts) if (strictness(p.decision) > strictness(winner)) winner = p.decision;
  const reasonCodes = dedupe(parts.filter((p) => p.decision === winner).flatMap((p) => p.reasonCodes));
  const obligations = dedupe(parts.flatMap((p) => p.obligations));
  let expiresAt: string | undefined;
  for (const p of parts) expiresAt = earliestExpiry(expiresAt, p.expiresAt);
  return expiresAt === undefined
    ? { decision: winner, reasonCodes, obligations }
    : { decision: winner, reasonCodes, obligations, expiresAt };
}

function dedupe(values: readonly string[]): string[] {
  return [...new Set(values)];
}
