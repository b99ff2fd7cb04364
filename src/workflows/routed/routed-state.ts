import type { Plan } from '../planning/plan.js';
import type { ModelMessageInput } from '../runner/ports.js';

/**
 * Where a routed run is: its route (current domain, changes so far), and with a planner the plan, the
 * step in progress and the replans. Plain bounded JSON: it is the profile's checkpoint
 * (`RunContext.checkpoint`), so a run that continues as new takes up exactly here.
 */
export interface RoutedState {
  /**
   * `route`: decide the route (no planner); `session`: work in the current domain (no planner);
   * `plan`: ask for a plan; `step`: run the plan's step at `pos`; `fallback`: work in the fallback
   * domain; `answer`: compose the final answer.
   */
  phase: 'route' | 'session' | 'plan' | 'step' | 'fallback' | 'answer';
  current?: string;
  routeChanges: number;
  /** Digest of the catalogue the run started on: a generation on another catalogue fails closed. */
  catalogueDigest: string;
  /** Phases so far, across generations (bounded by the profile). */
  phases: number;
  replans: number;
  plan?: Plan;
  /** The admitted plan's execution order (step ids). */
  order?: string[];
  /** Index into `order` of the step to run. */
  pos: number;
  /** Attempt of that step (1, 2, …). */
  attempt: number;
  /** How each step of the admitted plan ended so far (a new plan starts empty). */
  outcomes: Record<string, 'succeeded' | 'failed'>;
  /** Replan conditions that already held when the plan was admitted (they do not fire). */
  heldAtAdmission: string[];
  /** Why the run is replanning, retrying a step, falling back or answering (shown to the model). */
  why?: string;
  /** Messages for the next model call (tool results not yet shown). */
  pending: ModelMessageInput[];
}

/** The state of a routed run's first generation. */
export function initialRoutedState(
  planned: boolean,
  first: ModelMessageInput[],
  catalogueDigest: string,
): RoutedState {
  return {
    phase: planned ? 'plan' : 'route',
    routeChanges: 0,
    catalogueDigest,
    phases: 0,
    replans: 0,
    pos: 0,
    attempt: 1,
    heldAtAdmission: [],
    outcomes: {},
    pending: first,
  };
}
