import type { PolicyDecision } from '../../contract/policy-decision.js';
import { mergeDecisions } from './decision-merge.js';
import type { Policy, PolicyRequest } from './policy.js';
import { policyVersionOf } from './policy.js';
import { PolicyError } from './policy-error.js';
import { versionedName } from '../../contract/versioned-name.js';

/**
 * Compose policies into one, pinned under its own `name@version`. Every policy is asked; the
 * strictest decision wins in the order `deny` > `require_human` > `require_confirmation` > `allow`.
 * Reason codes are those of the policies that produced the winning kind; obligations are those of
 * every policy; both deduplicated in policy order, then code order. The earliest expiry applies.
 *
 * A throwing member makes the composition throw (callers such as {@link authorizeDispatch} deny).
 *
 * @throws PolicyError `policy.config_invalid` when `policies` is empty or two members share a
 *   `name@version` (their decisions could not be told apart in audit).
 */
export function composePolicies(name: string, version: string, policies: readonly Policy[]): Policy {
  if (policies.length === 0) {
    throw new PolicyError(
      'policy.config_invalid',
      `composed policy ${versionedName(name, version)} needs at least one policy`,
      {
        field: 'policies',
      },
    );
  }
  const seen = new Set<string>();
  for (const p of policies) {
    const id = policyVersionOf(p);
    if (seen.has(id)) {
      throw new PolicyError(
        'policy.config_invalid',
        `composed policy ${versionedName(name, version)} lists ${id} twice`,
        {
          field: 'policies',
          policy: id,
        },
      );
    }
    seen.add(id);
  }
  const members = [...policies];
  const authorization = members.find((p) => p.authorization !== undefined)?.authorization;
  return {
    name,
    version,
    ...(authorization !== undefined ? { authorization } : {}),
    evaluate(req: PolicyRequest): PolicyDecision {
      const merged = mergeDecisions(members.map((p) => p.evaluate(req)));
      return { policyVersion: versionedName(name, version), ...merged };
    },
  };
}
