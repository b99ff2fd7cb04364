/**
 * The fixed list of plan reason codes: why a plan was rejected (admission), and what happened to a
 * step or a plan while it ran. Codes go into durable audit records: never renamed or reused with
 * another meaning, only added.
 */
export const PlanReasonCodes = {
  // Admission: why a proposed plan is rejected (a rejected plan runs no tool).
  /** The answer is not a plan of the output schema's shape (or not JSON). */
  invalidShape: 'plan.invalid_shape',
  /** More steps than the limit. */
  tooManySteps: 'plan.too_many_steps',
  /** A step allows more attempts than the limit. */
  attemptsExceeded: 'plan.attempts_exceeded',
  /** Two steps share an id. */
  duplicateStep: 'plan.duplicate_step',
  /** A step names a capability domain the catalogue does not declare. */
  unknownCapability: 'plan.unknown_capability',
  /** A step's domain is excluded by the verified facts and no step it depends on can change them. */
  capabilityExcluded: 'plan.capability_excluded',
  /** A step's domain requires facts that are neither verified nor established by a step it depends on. */
  factsNotEstablished: 'plan.facts_not_established',
  /** A dependency names no step of the plan. */
  unknownDependency: 'plan.unknown_dependency',
  /** The dependencies form a cycle. */
  dependencyCycle: 'plan.dependency_cycle',
  /** A step in a domain with write tools names no gate, or a weaker one than the domain's. */
  gateMissing: 'plan.gate_missing',
  // Execution.
  /** The step's success condition held after it ran. */
  stepSucceeded: 'plan.step_succeeded',
  /** The step ran and its success condition did not hold. */
  conditionNotMet: 'plan.condition_not_met',
  /** The router did not enter the step's domain (the rules excluded it, or the route bound was hit). */
  stepNotRouted: 'plan.step_not_routed',
  /** A step it depends on did not succeed. */
  dependencyFailed: 'plan.dependency_failed',
  /** A replan condition fired. */
  replanCondition: 'plan.replan_condition',
  /** A step's failure route is `replan`. */
  stepFailedReplan: 'plan.step_failed_replan',
  /** The replan bound is reached: the declared fallback. */
  replanLimit: 'plan.replan_limit',
} as const;

export type PlanReasonCode = (typeof PlanReasonCodes)[keyof typeof PlanReasonCodes];

/** The codes of a rejected admission. */
export type PlanViolationCode =
  | typeof PlanReasonCodes.invalidShape
  | typeof PlanReasonCodes.tooManySteps
  | typeof PlanReasonCodes.attemptsExceeded
  | typeof PlanReasonCodes.duplicateStep
  | typeof PlanReasonCodes.unknownCapability
  | typeof PlanReasonCodes.capabilityExcluded
  | typeof PlanReasonCodes.factsNotEstablished
  | typeof PlanReasonCodes.unknownDependency
  | typeof PlanReasonCodes.dependencyCycle
  | typeof PlanReasonCodes.gateMissing;

const ALL: ReadonlySet<string> = new Set(Object.values(PlanReasonCodes));

/** Whether `code` is on the fixed list. Never throws. */
export function isPlanReasonCode(code: unknown): code is PlanReasonCode {
  return typeof code === 'string' && ALL.has(code);
}

/**
 * Version of the plan checker (`admitPlan`'s rules and codes). Recorded in every admission; bumped
 * whenever the same catalogue, facts and plan could be judged otherwise.
 */
export const PLAN_CHECKER_VERSION = 'plan-checker@v1';
