/**
 * The Planner's pure core (issue 38): the seed's `Plan` / `PlanStep`, the `plan` call's output schema
 * and the reading of its answer, and the versioned admission check. Sandbox-safe: no I/O, no clock, no
 * randomness. See docs/routing-and-planning.md.
 */
export {
  DEFAULT_PLAN_LIMITS,
  type FailureRoute,
  type Plan,
  type PlanLimits,
  type PlanStep,
  type ReplanCondition,
} from './plan.js';
export {
  PLAN_CHECKER_VERSION,
  PlanReasonCodes,
  isPlanReasonCode,
  type PlanReasonCode,
  type PlanViolationCode,
} from './plan-reason-codes.js';
export { planOutputSchema, readPlanProposal, readPlanText, type ReadPlan } from './plan-proposal.js';
export { admitPlan, type PlanAdmission, type PlanViolation } from './admit-plan.js';
