import { holds } from '../policy/predicates.js';
import type { PolicyFacts } from '../policy/policy.js';
import type { CompiledDomain } from './capability-catalogue.js';
import type { RouteExclusion } from './route-decision.js';
import { RouteReasonCodes } from './route-reason-codes.js';

/**
 * Whether the rules admit `domain` under the verified `facts`: undefined when they do, else the
 * exclusion. A required fact that is absent excludes with `route.facts_missing` (all absent facts
 * listed); with every required fact present, a false entry condition excludes with
 * `route.condition_false` (the facts of the false conditions). Linear in the domain's conditions;
 * never throws (a fact of the wrong type makes its comparison false).
 */
export function exclusionOf(domain: CompiledDomain, facts: PolicyFacts): RouteExclusion | undefined {
  const missing = domain.requiredFacts.filter((f) => !hasFact(facts, f));
  if (missing.length) return { domain: domain.id, reasonCode: RouteReasonCodes.factsMissing, facts: missing };
  const failing = domain.entry.filter((p) => {
    const found = hasFact(facts, p.fact);
    return !holds(p, found ? { found: true, value: facts[p.fact] } : { found: false });
  });
  if (!failing.length) return undefined;
  return {
    domain: domain.id,
    reasonCode: RouteReasonCodes.conditionFalse,
    facts: [...new Set(failing.map((p) => p.fact))],
  };
}

function hasFact(facts: PolicyFacts, fact: string): boolean {
  return Object.prototype.hasOwnProperty.call(facts, fact);
}
