import type { RunContext } from '../runner/run-context.js';
import type { CapabilityCatalogue } from '../routing/capability-catalogue.js';
import { decideRoute } from '../routing/decide-route.js';
import type { DomainRouteDecision, RouteState } from '../routing/route-decision.js';
import { routeQuestion } from './routed-messages.js';
import type { RoutedState } from './routed-state.js';

/** Parse a model's text as JSON; `null` (an invalid proposal) when it is not. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * Take one route decision and record it: rules over the run's verified facts first; with a plan
 * step, its domain is the proposal; otherwise, where the rules leave a choice, a model call of purpose
 * `route` whose output schema lists the choices only (its answer is read by the router, not trusted:
 * `outputCheck: 'caller'`). Emits `route.decided` with the decision (the seed's fields, reason code,
 * exclusions, catalogue and checker version), `kind: 'domain'`, the run's policy version and `extra`
 * (the plan and step it serves), and moves the run into the decided domain. Throws what
 * `RunContext.model` throws.
 */
export async function decideAndRecord(
  ctx: RunContext,
  catalogue: CapabilityCatalogue,
  state: RoutedState,
  planned?: { readonly route: string; readonly extra: Record<string, unknown> },
): Promise<DomainRouteDecision> {
  const facts = ctx.facts();
  const routeState: RouteState = {
    facts,
    routeChanges: state.routeChanges,
    ...(state.current !== undefined ? { current: state.current } : {}),
  };
  let outcome = planned
    ? decideRoute(catalogue, routeState, { route: planned.route }, 'plan')
    : decideRoute(catalogue, routeState);
  if (outcome.status === 'ask_model') {
    const answer = await ctx.model('route', {
      // Tool results not yet shown go first: a provider wants every call answered before a question.
      messages: [...state.pending, ...routeQuestion(catalogue, outcome.choices, facts)],
      outputSchema: outcome.outputSchema,
      outputCheck: 'caller',
      invalidToolCalls: 'report',
    });
    state.pending = [];
    // A tool call is no route: an invalid proposal (the fallback), as is text that is not JSON.
    const proposal = answer.toolCalls.length || answer.invalidToolCalls?.length ? null : parsed(answer.text);
    outcome = decideRoute(catalogue, routeState, proposal, 'model');
  }
  if (outcome.status !== 'decided') throw new Error('unreachable: a route with a proposal is decided');
  const decision = outcome.decision;
  ctx.emit('route.decided', {
    kind: 'domain',
    ...decision,
    policyVersion: ctx.policyVersion,
    ...(planned?.extra ?? {}),
  });
  state.current = decision.route;
  state.routeChanges = decision.routeChanges;
  return decision;
}
