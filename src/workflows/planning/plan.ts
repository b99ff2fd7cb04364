import type { FactPredicate } from '../policy/rules-schema.js';
import type { GateKind } from '../routing/capability-domain.js';

/**
 * The seed's `Plan` and `PlanStep` (issue 38), as the harness records them (camelCase, like the route
 * decision's fields). A model of purpose `plan` proposes them in the seed's snake_case
 * (`readPlanProposal`); `admitPlan` decides whether the run executes them. A plan never grants a
 * capability: every step still goes through the router and the policy.
 */

/** Where a step that did not reach its success condition leads. */
export type FailureRoute = 'replan' | 'fallback' | 'abort';

/** One step: what it is for, in which capability domain, after which steps, and how it is judged. */
export interface PlanStep {
  /** Unique in the plan: 1..40 of `[A-Za-z0-9_.-]`. */
  readonly stepId: string;
  /** What the step is for, in words (at most 500 characters). */
  readonly objective: string;
  /** The capability domain the step runs in (a domain id of the catalogue). */
  readonly capability: string;
  /** Steps that must have succeeded first. */
  readonly dependencies: readonly string[];
  /** Conditions over the run's verified facts, all of which must hold once the step ran (empty: always). */
  readonly successCondition: readonly FactPredicate[];
  readonly failureRoute: FailureRoute;
  /** How often the step may run before its failure route is taken (1..`maxAttemptsPerStep`). */
  readonly maxAttempts: number;
  /** The gate the plan expects in front of the step's writes; a write domain's step must name one. */
  readonly gate?: GateKind;
}

/** When a plan is to be made again: a condition over verified facts that was false at admission. */
export interface ReplanCondition {
  /** 1..40 of `[A-Za-z0-9_.-]`. */
  readonly id: string;
  readonly when: FactPredicate;
}

/** A plan (seed: `Plan { plan_id, goal, assumptions, steps, replan_conditions }`). */
export interface Plan {
  readonly planId: string;
  readonly goal: string;
  readonly assumptions: readonly string[];
  readonly steps: readonly PlanStep[];
  readonly replanConditions: readonly ReplanCondition[];
}

/** The bounds a plan is admitted under (part of the checker's inputs, recorded with each admission). */
export interface PlanLimits {
  /** Most steps in one plan; default 8, at most 32. */
  readonly maxSteps: number;
  /** Most attempts of one step; default 3, at most 5. */
  readonly maxAttemptsPerStep: number;
}

/** Default {@link PlanLimits}. */
export const DEFAULT_PLAN_LIMITS: PlanLimits = { maxSteps: 8, maxAttemptsPerStep: 3 };
