import { catalogueRef, type CapabilityCatalogue } from './capability-catalogue.js';
import { exclusionOf } from './domain-admission.js';
import type {
  DomainRouteDecision,
  RouteDecider,
  RouteExclusion,
  RouteOutcome,
  RouteProposer,
  RouteState,
} from './route-decision.js';
import { MAX_PROPOSED_ROUTE, readRouteProposal, routeOutputSchema } from './route-output-schema.js';
import { ROUTE_CHECKER_VERSION, RouteReasonCodes, type RouteReasonCode } from './route-reason-codes.js';

/** The rules' verdict before any proposal: who is admitted, who is excluded and why. */
interface Admission {
  readonly candidates: readonly string[];
  readonly exclusions: readonly RouteExclusion[];
}

/**
 * Decide the route of a run over a pinned catalogue: the model proposes, the rules decide.
 *
 * 1. Rules over the verified facts of `state`: each non-fallback domain is a candidate or excluded
 *    with `route.facts_missing` / `route.condition_false`.
 * 2. No candidate: the fallback (`route.no_candidate`). One: it (`route.single_candidate`); a proposal
 *    is then not read. Several and no `proposal` (undefined): `{ status: 'ask_model' }` with the
 *    choices (the candidates, then the fallback) and their output schema; the caller asks a model of
 *    purpose `route` and calls again with its answer. Several and a proposal: a choice is taken
 *    (`route.model_choice`); an answer outside the schema's shape, an unknown domain or an excluded one
 *    is never taken, the fallback is (`route.invalid_proposal`, `route.unknown_domain`,
 *    `route.excluded_domain`).
 *    With `proposer` `plan` (an admitted plan's step names its domain, `{ route: step.capability }`),
 *    the proposal is read even when the rules leave one candidate: a choice is taken
 *    (`route.plan_step`, decided by `plan`), anything else gives the fallback as above. The plan
 *    proposes; the rules still decide.
 * 3. A route other than `state.current` once `state.routeChanges` reached the catalogue's
 *    `maxRouteChanges` is replaced by the fallback (`route.change_limit`): no ping-pong past the bound.
 *    A malformed state (unknown current domain, a change count that is not a non-negative integer)
 *    gives the fallback (`route.invalid_state`).
 *
 * Pure and deterministic (same catalogue, state and proposal: the same outcome, in catalogue order);
 * linear in the catalogue's size. Never throws, whatever the proposal holds.
 */
export function decideRoute(
  catalogue: CapabilityCatalogue,
  state: RouteState,
  proposal?: unknown,
  proposer: RouteProposer = 'model',
): RouteOutcome {
  const admission = admit(catalogue, state);
  const decided = (
    route: string,
    reasonCode: RouteReasonCode,
    decidedBy: RouteDecider,
    proposed?: string,
  ): RouteOutcome => ({
    status: 'decided',
    decision: bounded(catalogue, state, admission, { route, reasonCode, decidedBy, proposed }),
  });
  if (!validState(catalogue, state))
    return decided(catalogue.fallback, RouteReasonCodes.invalidState, 'fallback');
  const { candidates, exclusions } = admission;
  if (candidates.length === 0) return decided(catalogue.fallback, RouteReasonCodes.noCandidate, 'fallback');
  const choices = [...candidates, catalogue.fallback];
  if (proposer === 'plan') return proposed(proposal, RouteReasonCodes.planStep, 'plan');
  if (candidates.length === 1) return decided(candidates[0]!, RouteReasonCodes.singleCandidate, 'rules');
  if (proposal === undefined) {
    return { status: 'ask_model', choices, candidates, exclusions, outputSchema: routeOutputSchema(choices) };
  }
  return proposed(proposal, RouteReasonCodes.modelChoice, 'model');

  /** The proposal's route when it is a choice (`taken` by `by`), else the fallback with why. */
  function proposed(answer: unknown, taken: RouteReasonCode, by: RouteDecider): RouteOutcome {
    const read = readRouteProposal(answer);
    if (!read.ok) return decided(catalogue.fallback, RouteReasonCodes.invalidProposal, 'fallback');
    if (choices.includes(read.route)) return decided(read.route, taken, by, read.route);
    const known = catalogue.domains.some((d) => d.id === read.route);
    const code = known ? RouteReasonCodes.excludedDomain : RouteReasonCodes.unknownDomain;
    return decided(catalogue.fallback, code, 'fallback', read.route.slice(0, MAX_PROPOSED_ROUTE));
  }
}

function admit(catalogue: CapabilityCatalogue, state: RouteState): Admission {
  const candidates: string[] = [];
  const exclusions: RouteExclusion[] = [];
  const facts = isRecord(state?.facts) ? state.facts : {};
  for (const d of catalogue.domains) {
    if (d.fallback) continue;
    const excluded = exclusionOf(d, facts);
    if (excluded) exclusions.push(excluded);
    else candidates.push(d.id);
  }
  return { candidates, exclusions };
}

function validState(catalogue: CapabilityCatalogue, state: RouteState): boolean {
  if (!isRecord(state) || !isRecord(state.facts)) return false;
  const n = state.routeChanges;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) return false;
  return state.current === undefined || catalogue.domains.some((d) => d.id === state.current);
}

/**
 * The decision record, with the change bound applied: a route other than the current one counts as a
 * change, and a change past `maxRouteChanges` becomes the fallback. After an invalid state nothing is
 * counted (the record says 0 changes).
 */
function bounded(
  catalogue: CapabilityCatalogue,
  state: RouteState,
  admission: Admission,
  chosen: { route: string; reasonCode: RouteReasonCode; decidedBy: RouteDecider; proposed?: string },
): DomainRouteDecision {
  const counted = chosen.reasonCode !== RouteReasonCodes.invalidState;
  const changesAfter = (route: string): number =>
    counted ? state.routeChanges + (state.current !== undefined && state.current !== route ? 1 : 0) : 0;
  let { route, reasonCode, decidedBy } = chosen;
  if (route !== catalogue.fallback && changesAfter(route) > catalogue.maxRouteChanges) {
    route = catalogue.fallback;
    reasonCode = RouteReasonCodes.changeLimit;
    decidedBy = 'fallback';
  }
  return {
    route,
    candidateCapabilities: admission.candidates,
    excludedCapabilities: admission.exclusions.map((e) => e.domain),
    reasonCode,
    exclusions: admission.exclusions,
    decidedBy,
    ...(chosen.proposed !== undefined ? { proposed: chosen.proposed } : {}),
    routeChanges: changesAfter(route),
    catalogue: catalogueRef(catalogue),
    checkerVersion: ROUTE_CHECKER_VERSION,
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
