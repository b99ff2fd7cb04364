/**
 * The catalogue of stable policy reason codes. Codes are written to durable audit records and
 * matched by tests and operators, so a code is never renamed or reused with another meaning once
 * released; new codes are only added.
 */
export const ReasonCodes = {
  /** {@link AllowAllPolicy} allowed a registered tool. */
  allowAll: 'policy.allow_all',
  /** Every restriction of a {@link RestrictionPolicy} held. */
  restrictionsSatisfied: 'policy.restrictions_satisfied',
  /** The tool is not in the allowed tool list. */
  toolNotAllowed: 'policy.tool_not_allowed',
  /** The tool's trusted effect is not in the allowed effect list. */
  effectNotAllowed: 'policy.effect_not_allowed',
  /** A path field holds an absolute path (POSIX `/`, drive `C:`, UNC `\\`, home `~`). */
  pathAbsolute: 'policy.path_absolute',
  /** A path field climbs above the workspace with `..` after normalisation. */
  pathEscape: 'policy.path_escape',
  /** A path field is not a usable path: empty, not a string, control/format characters, backslash, colon, non-NFC or look-alike separators. */
  pathInvalid: 'policy.path_invalid',
  /** A path field is relative and normalised but lies outside every allowed root. */
  pathOutsideRoots: 'policy.path_outside_roots',
  /** A rule of a {@link RulesPolicy} matched (the rule's own codes are added beside it). */
  ruleMatched: 'policy.rule_matched',
  /** No rule matched; the rules policy applied its default. */
  noRuleMatched: 'policy.no_rule_matched',
  /** A decision was used after its `expiresAt`. */
  decisionExpired: 'policy.decision_expired',
  /** A policy threw while evaluating; the harness failed closed. */
  evaluationFailed: 'policy.evaluation_failed',
  /** A policy returned a decision that does not satisfy the decision schema or the code rules. */
  decisionInvalid: 'policy.decision_invalid',
} as const;

export type ReasonCode = (typeof ReasonCodes)[keyof typeof ReasonCodes];

const CATALOGUE: ReadonlySet<string> = new Set(Object.values(ReasonCodes));

/**
 * Shape of a custom reason code or obligation namespace: lowercase dotted words, at least two
 * segments, e.g. `refund.amount_over_auto_limit`. At most 100 characters.
 */
export const CUSTOM_REASON_CODE_PATTERN = /^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+$/;

/** Namespace reserved for catalogue codes; custom codes may not use it. */
export const RESERVED_REASON_PREFIX = 'policy.';

/** True when `code` is one of the catalogue codes in {@link ReasonCodes}. */
export function isCatalogueReasonCode(code: string): code is ReasonCode {
  return CATALOGUE.has(code);
}

/**
 * True when `code` may appear in a durable decision: a catalogue code, or a custom code that
 * matches {@link CUSTOM_REASON_CODE_PATTERN}, is at most 100 characters and does not use the
 * reserved `policy.` namespace.
 */
export function isValidReasonCode(code: string): boolean {
  if (isCatalogueReasonCode(code)) return true;
  return (
    code.length <= 100 && CUSTOM_REASON_CODE_PATTERN.test(code) && !code.startsWith(RESERVED_REASON_PREFIX)
  );
}

/**
 * Shape of an obligation: a dotted name with an optional `=value`, e.g. `limit.refund_amount=5000`,
 * `confirm.user.v2`, `mask.phone`. At most 200 characters.
 */
export const OBLIGATION_PATTERN = /^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+(?:=[A-Za-z0-9_.:-]+)?$/;

/** True when `obligation` matches {@link OBLIGATION_PATTERN} and is at most 200 characters. */
export function isValidObligation(obligation: string): boolean {
  return obligation.length <= 200 && OBLIGATION_PATTERN.test(obligation);
}
