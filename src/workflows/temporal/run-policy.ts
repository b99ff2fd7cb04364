import type { ResolvedBundles } from '../../contract/bundles.js';
import type { AgentRunInput } from '../../contract/run-input.js';
import type { Policy } from '../policy/policy.js';
import { RulesPolicy } from '../policy/rules-policy.js';
import { allowedPolicies, type Profile } from '../runner/profile.js';
import { bindPolicy, type AgentRunComposition } from './agent-run-definition.js';
import type { CarriedRun } from './carried-run.js';
import { fail } from './run-checks.js';
import { POLICY_BINDING_PATCH, type RunPatches } from './run-patches.js';
import { versionedName } from '../../contract/versioned-name.js';

function splitPolicy(spec: string): { name: string; version: string } {
  const [name = '', version = ''] = spec.split('@');
  return { name, version };
}

/**
 * The policy in code a run runs under, and the name and version it is bound by: the one its first
 * generation pinned (a carried run keeps it, whatever the profile's default is now), else the one its
 * input names, else its profile's default. A policy built on first use is built here.
 * @throws ApplicationFailure `run.policy_not_allowed` (non-retryable) when a first generation names a
 *   policy its profile does not list, `run.unknown_policy` (non-retryable) when the policy is not
 *   registered; whatever the policy's own `check` throws (a workflow task failure, retried).
 */
export function bindRunPolicy(
  composition: AgentRunComposition,
  profile: Profile,
  input: AgentRunInput,
  carried: CarriedRun | undefined,
  runPatches: RunPatches,
): { readonly name: string; readonly version: string; readonly policy: Policy } {
  // A carried run keeps the policy its first generation pinned, whatever the profile's default is now.
  const pinnedPolicy = (carried?.state as { versions?: { policy?: unknown } } | undefined)?.versions?.policy;
  const bound =
    typeof pinnedPolicy === 'string' && input.policy === undefined
      ? { ...splitPolicy(pinnedPolicy), allowed: true }
      : bindPolicy(profile, input.policy);
  // A carried run keeps the policy its first generation started under. Asked only on the refusal path,
  // so histories from before the binding (a profile run under any registered policy) replay unchanged.
  if (!bound.allowed && !carried && runPatches.on(POLICY_BINDING_PATCH))
    fail(
      'run.policy_not_allowed',
      `profile ${versionedName(profile.name, profile.version)} may not run under ${versionedName(bound.name, bound.version)} (allowed: ${allowedPolicies(profile).join(', ')})`,
    );
  const codePolicy = composition.policies.find(bound.name, bound.version);
  if (!codePolicy)
    fail('run.unknown_policy', `policy ${versionedName(bound.name, bound.version)} is not registered`);
  // A policy built on first use is built here: a bad one fails this workflow task (retried).
  codePolicy.check?.();
  return { name: bound.name, version: bound.version, policy: codePolicy };
}

/**
 * The policy a run uses: its policy in code, or, when it pinned a policy bundle for it, a
 * `RulesPolicy` of the bundle's data under the same name and version (decisions name the policy; the
 * pin names the data). The authorization rules come from the bundle when it has them, else from the
 * policy in code.
 * @throws ApplicationFailure `run.bundles_invalid` (non-retryable) when the data is not a rules policy.
 */
export function bundledPolicy(policy: Policy, bundles: ResolvedBundles | undefined): Policy {
  const data = bundles?.policy?.data;
  if (data === undefined) return policy;
  try {
    const bundled = new RulesPolicy({
      ...(policy.authorization !== undefined ? { authorization: policy.authorization } : {}),
      ...(data as unknown as ConstructorParameters<typeof RulesPolicy>[0]),
      name: policy.name,
      version: policy.version,
    });
    return bundled;
  } catch (err) {
    return fail(
      'run.bundles_invalid',
      `policy bundle ${bundles?.pin.policy?.key}: ${(err as Error).message}`,
    );
  }
}
