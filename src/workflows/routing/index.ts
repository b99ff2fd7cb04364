/**
 * The router's pure core (issue 38): capability domains compiled into a pinned catalogue, the route
 * decision over verified facts and a model's proposal, and the static cross-domain reachability check.
 * Sandbox-safe: no I/O, no clock, no randomness. See docs/routing-and-planning.md.
 */
export {
  DEFAULT_MAX_ROUTE_CHANGES,
  type CapabilityDomainSpec,
  type CatalogueSpec,
  type GateKind,
  type WriteGateSpec,
} from './capability-domain.js';
export {
  catalogueRef,
  domainOf,
  type CapabilityCatalogue,
  type CatalogueRef,
  type CompiledDomain,
  type CompiledGate,
} from './capability-catalogue.js';
export {
  CATALOGUE_INVALID,
  CatalogueInvalidError,
  type CatalogueIssue,
  type CatalogueIssueCode,
} from './catalogue-error.js';
export type { CatalogueTool } from './catalogue-tools.js';
export { compileCatalogue } from './compile-catalogue.js';
export type { FactDeriver, FactUpdate, SettledToolCall } from './fact-deriver.js';
export {
  ROUTE_CHECKER_VERSION,
  RouteReasonCodes,
  isRouteReasonCode,
  type RouteExclusionCode,
  type RouteReasonCode,
} from './route-reason-codes.js';
export type {
  DomainRouteDecision,
  RouteDecider,
  RouteExclusion,
  RouteOutcome,
  RouteProposer,
  RouteQuestion,
  RouteState,
} from './route-decision.js';
export { readRouteProposal, routeOutputSchema, type ReadProposal } from './route-output-schema.js';
export { decideRoute } from './decide-route.js';
export {
  checkReachability,
  type ReachabilityOptions,
  type ReachabilityReport,
  type ReachabilityViolation,
} from './reachability.js';
