import type { PolicyFacts } from '../policy/policy.js';
import type { ModelMessageInput } from '../runner/ports.js';
import type { CapabilityCatalogue, CompiledDomain } from '../routing/capability-catalogue.js';

/**
 * The trusted messages a routed profile adds to the run's conversation. Each starts with a marker in
 * brackets (`[route]`, `[plan]`, `[replan]`, `[step: s1] [domain: cancel_pending_order]`, `[domain: …]`,
 * `[answer]`) so a person reading the transcript, and a scripted model, can tell what is asked. They
 * are written by the harness (trust `system`) and quote only the catalogue and the harness's own ids
 * and codes; what the run learned (verified facts, whose values come from tool results) and what a
 * model wrote (a step's objective) follow in a separate message of trust `untrusted`, fenced as data.
 */

const harness = (content: string): ModelMessageInput => ({ role: 'user', trust: 'system', content });
/** What the run learned or the model wrote (verified facts, a plan's objective): shown as data. */
const data = (content: string): ModelMessageInput => ({ role: 'user', trust: 'untrusted', content });

/** The verified facts the catalogue speaks of, as `name=value` (other facts are not shown). */
export function factsLine(catalogue: CapabilityCatalogue, facts: PolicyFacts): string {
  const named = new Set<string>();
  for (const d of catalogue.domains) {
    for (const f of [...d.requiredFacts, ...d.establishes]) named.add(f);
    for (const g of d.gates) for (const f of g.requiredFacts) named.add(f);
  }
  const shown = [...named]
    .sort()
    .filter((f) => ['string', 'number', 'boolean'].includes(typeof facts[f]))
    .map((f) => `${f}=${JSON.stringify(facts[f])}`);
  return shown.length ? shown.join(', ') : 'none';
}

function domainLine(d: CompiledDomain): string {
  const gate = d.gates.length
    ? ` (writes behind ${d.gates.some((g) => g.kind === 'approval') ? 'approval' : 'confirmation'})`
    : '';
  return `- ${d.id}${d.fallback ? ' (fallback)' : ''}: ${d.description}${gate}`;
}

/** `[route]`: choose among `choices` (each with its description), answer `{"route": …}`. */
export function routeQuestion(
  catalogue: CapabilityCatalogue,
  choices: readonly string[],
  facts: PolicyFacts,
): ModelMessageInput[] {
  const lines = catalogue.domains.filter((d) => choices.includes(d.id)).map(domainLine);
  return [
    harness(
      `[route] Choose the capability domain for the next part of the request. Answer only JSON {"route": "<domain>"}, one of:\n${lines.join('\n')}`,
    ),
    data(`Verified facts: ${factsLine(catalogue, facts)}.`),
  ];
}

/** `[plan]` (or `[replan] <why>`): propose a plan over the catalogue's domains. */
export function planQuestion(
  catalogue: CapabilityCatalogue,
  facts: PolicyFacts,
  replanWhy?: string,
): ModelMessageInput[] {
  const head =
    replanWhy === undefined
      ? '[plan] Propose a plan for the request.'
      : `[replan] ${replanWhy} Propose a plan for what remains of the request.`;
  return [
    harness(
      `${head} Answer only JSON with plan_id, goal, assumptions, steps (step_id, objective, capability, dependencies, success_condition over verified facts, failure_route, max_attempts, gate for a domain with writes) and replan_conditions. Capability domains:\n${catalogue.domains.map(domainLine).join('\n')}`,
    ),
    data(`Verified facts: ${factsLine(catalogue, facts)}.`),
  ];
}

/**
 * `[step: id] [domain: d]`: carry out one plan step with the domain's tools only; its objective (the
 * plan's words) follows as data, `Objective: …`.
 */
export function stepMessages(
  stepId: string,
  domain: CompiledDomain,
  objective: string,
  retryWhy?: string,
): ModelMessageInput[] {
  const again = retryWhy === undefined ? '' : ` Again: ${retryWhy}.`;
  return [
    harness(
      `[step: ${stepId}] [domain: ${domain.id}] Carry out the plan step whose objective follows.${again} Use only the tools offered; answer without a tool call when the step is done.`,
    ),
    data(`Objective: ${objective}`),
  ];
}

/** `[domain: d]`: the run is now in domain `d` (routing without a plan). */
export function domainMessage(domain: CompiledDomain): ModelMessageInput {
  return harness(
    `[domain: ${domain.id}] ${domain.description} Use only the tools offered; answer the customer without a tool call when done.`,
  );
}

/** `[answer]`: compose the final answer from what the tool results show. */
export function answerMessage(why: string): ModelMessageInput {
  return harness(
    `[answer] ${why} Tell the customer what was done and what was not, stating only what the tool results show.`,
  );
}
