import type { BundlePin } from '../../contract/bundles.js';
import type { DecisionRules } from '../../contract/policy-decision.js';
import { policyVersionOf, type Policy } from '../policy/index.js';

/**
 * The rules a run's policy decisions come from: the policy bundle its pin names for its policy (the
 * pin's policy bundle always fills the run's policy, docs/control-plane.md), else the policy in code.
 * Pure; never throws.
 */
export function decisionRulesOf(
  policy: Pick<Policy, 'name' | 'version'>,
  pin: BundlePin | undefined,
): DecisionRules {
  const bundle = pin?.policy;
  if (bundle !== undefined)
    return { source: 'bundle', bundle: bundle.key, digest: bundle.digest, policy: bundle.target };
  return { source: 'code', policy: policyVersionOf(policy) };
}
