/**
 * The routed profile (issue 38): the Router and the Planner at work in a run. The model proposes a
 * route or a plan; the pure cores (`../routing`, `../planning`) decide; the runner executes under the
 * policy. See docs/routing-and-planning.md.
 */
export { createRoutedProfile, type RoutedProfileConfig } from './routed-profile.js';
export type { PlannerOptions } from './planned-run.js';
