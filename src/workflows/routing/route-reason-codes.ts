/**
 * The fixed list of route reason codes. A route decision carries exactly one of the decision codes;
 * each excluded domain carries one of the exclusion codes. Codes go into durable audit records and are
 * matched by tests and operators: never renamed or reused with another meaning, only added.
 */
export const RouteReasonCodes = {
  /** The rules over verified facts left exactly one (non-fallback) domain: it is taken, no model asked. */
  singleCandidate: 'route.single_candidate',
  /** The rules left several domains and the model's proposal named one of them (or the fallback). */
  modelChoice: 'route.model_choice',
  /** An admitted plan's step named one of the choices (the candidates or the fallback). */
  planStep: 'route.plan_step',
  /** No (non-fallback) domain's entry conditions hold: the fallback is taken. */
  noCandidate: 'route.no_candidate',
  /** The proposal named a domain the catalogue does not declare: the fallback is taken. */
  unknownDomain: 'route.unknown_domain',
  /** The proposal named a declared domain the rules excluded: the fallback is taken. */
  excludedDomain: 'route.excluded_domain',
  /** The proposal does not fit the route output schema: the fallback is taken. */
  invalidProposal: 'route.invalid_proposal',
  /** The route would change once more than the catalogue's `maxRouteChanges`: the fallback is taken. */
  changeLimit: 'route.change_limit',
  /** The route state handed in is malformed (unknown current domain, bad change count): the fallback is taken. */
  invalidState: 'route.invalid_state',
  /** Exclusion: a fact the domain requires (declared, or read by an entry condition) is not verified. */
  factsMissing: 'route.facts_missing',
  /** Exclusion: every required fact is verified, but an entry condition does not hold. */
  conditionFalse: 'route.condition_false',
} as const;

export type RouteReasonCode = (typeof RouteReasonCodes)[keyof typeof RouteReasonCodes];

/** Codes a domain exclusion carries. */
export type RouteExclusionCode =
  typeof RouteReasonCodes.factsMissing | typeof RouteReasonCodes.conditionFalse;

const ALL: ReadonlySet<string> = new Set(Object.values(RouteReasonCodes));

/** Whether `code` is on the fixed list. Never throws. */
export function isRouteReasonCode(code: unknown): code is RouteReasonCode {
  return typeof code === 'string' && ALL.has(code);
}

/**
 * Version of the route checker (the rules of `decideRoute` and its reason codes). Recorded in every
 * decision; bumped whenever the same catalogue, state and proposal could give another decision.
 */
export const ROUTE_CHECKER_VERSION = 'route-checker@v1';
