import type { PolicyFacts } from '../policy/policy.js';
import type { RouteDecision } from '../runner/graph-definition.js';
import type { CatalogueRef } from './capability-catalogue.js';
import type { RouteExclusionCode, RouteReasonCode } from './route-reason-codes.js';

/** What the router knows of the run when it decides: verified facts and its route so far. */
export interface RouteState {
  /** The run's verified facts (never a model's claim). A fact once verified is assumed to stay present. */
  readonly facts: PolicyFacts;
  /** The domain the run is in, absent before the first decision. */
  readonly current?: string;
  /** Route changes so far in this run (the first route is not a change; A→B→A is two). */
  readonly routeChanges: number;
}

/** A domain the rules excluded, why, and which facts made it so. */
export interface RouteExclusion {
  readonly domain: string;
  readonly reasonCode: RouteExclusionCode;
  /** `route.facts_missing`: the absent facts; `route.condition_false`: the facts of the failing conditions. */
  readonly facts: readonly string[];
}

/**
 * Who decided: the rules alone, the model or an admitted plan's step among the rules' choices, or the
 * fallback after a refusal.
 */
export type RouteDecider = 'rules' | 'model' | 'plan' | 'fallback';

/** Who proposed the route: a model of purpose `route`, or the step of an admitted plan. */
export type RouteProposer = 'model' | 'plan';

/**
 * A route decision over a capability catalogue: the seed's `{ route, candidate_capabilities,
 * excluded_capabilities, reason_code }` (camelCase, as the graph profile's `route.decided` events write
 * them; capabilities here are domain ids) plus why each domain was excluded, who decided, the
 * catalogue it was decided on and the checker version.
 */
export interface DomainRouteDecision extends RouteDecision {
  /** The domain taken. */
  readonly route: string;
  /** The domains the rules admitted, by id (the fallback not among them). */
  readonly candidateCapabilities: readonly string[];
  /** The domains the rules excluded, by id. */
  readonly excludedCapabilities: readonly string[];
  readonly reasonCode: RouteReasonCode;
  readonly exclusions: readonly RouteExclusion[];
  readonly decidedBy: RouteDecider;
  /** The route the model proposed, when one was read (cut to 100 characters); absent otherwise. */
  readonly proposed?: string;
  /** The run's route changes once this decision is taken. */
  readonly routeChanges: number;
  readonly catalogue: CatalogueRef;
  readonly checkerVersion: string;
}

/** The rules left a choice: ask a model (purpose `route`) with `outputSchema`, then decide again with its answer. */
export interface RouteQuestion {
  readonly status: 'ask_model';
  /** The ids the model may name: the candidates, then the fallback. */
  readonly choices: readonly string[];
  readonly candidates: readonly string[];
  readonly exclusions: readonly RouteExclusion[];
  /** The output schema of the `route` call (see `routeOutputSchema`). */
  readonly outputSchema: Readonly<Record<string, unknown>>;
}

/** What `decideRoute` returns. */
export type RouteOutcome =
  { readonly status: 'decided'; readonly decision: DomainRouteDecision } | RouteQuestion;
