import { HarnessError } from '../../contract/errors.js';
import { createDefaultEvaluatorRegistry, type EvaluatorRegistry } from '../completion/evaluator-registry.js';
import type { CompletionEvaluator } from '../completion/completion.js';
import { createInputGuardrail, type InputGuardrailConfig } from '../guardrails/input-guardrail.js';
import { createOutputGuardrail, type OutputGuardrailConfig } from '../guardrails/output-guardrail.js';
import type { Policy } from '../policy/policy.js';
import { allowedPolicies, type Profile } from '../runner/profile.js';
import { NamedRegistry } from '../../registry/named-registry.js';
import { versionedName } from '../../contract/versioned-name.js';

/**
 * An app's trusted workflow-side composition, the parameter of `defineAgentRun`. Everything here runs
 * in the workflow sandbox and is pinned by name and version: a change in behaviour ships as a new
 * version (or behind `patched()`).
 */
export interface AgentRunDefinition {
  /** The profiles runs may name (exact name and version). */
  readonly profiles: readonly Profile[];
  /** The policies runs may name. */
  readonly policies: readonly Policy[];
  /** Completion evaluators beyond the defaults (solution_delivered, action_with_verification, ...). */
  readonly evaluators?: readonly CompletionEvaluator[];
  /**
   * Settings of the input and output guardrails (docs/guardrails.md): claim kinds, verified dates,
   * allowed promises, actions. Default: the built-in configuration. Validated when a run starts.
   */
  readonly guardrails?: {
    readonly input?: InputGuardrailConfig;
    readonly output?: OutputGuardrailConfig;
  };
}

/** The looked-up form of an {@link AgentRunDefinition}. */
export interface AgentRunComposition {
  readonly profiles: NamedRegistry<Profile>;
  readonly policies: NamedRegistry<Policy>;
  readonly evaluators: EvaluatorRegistry;
  readonly guardrails: NonNullable<AgentRunDefinition['guardrails']>;
}

function registryOf<T extends { readonly name: string; readonly version: string }>(
  kind: string,
  items: readonly T[],
): NamedRegistry<T> {
  const registry = new NamedRegistry<T>({ kind });
  for (const item of items) registry.register(item);
  return registry;
}

/**
 * Build the registries of a definition: exact name/version lookup, default evaluators included, and
 * every profile's completion contract checked against them (its evaluator registered, its params
 * accepted), so a bad definition is refused before a run does anything. The worker process and
 * `harness start` call it once; a workflow run checks only its own profile
 * ({@link registerAgentRun}, {@link checkRunProfile}).
 * @throws HarnessError `registry.conflict` when two items share a name and version, `registry.*` for an
 *   invalid evaluator name/version or a contract naming an unregistered evaluator; CompletionError
 *   `completion.contract_invalid` / `completion.params_invalid` for a malformed contract;
 *   GuardrailConfigError for invalid guardrail settings; HarnessError `profile.invalid` when a profile's
 *   default or allowed policy is not `name@vN` of a registered policy; whatever a profile's or a
 *   policy's `check()` throws (a graph that does not hold together, a rules config that does not parse).
 */
export function composeAgentRun(definition: AgentRunDefinition): AgentRunComposition {
  const composition = registerAgentRun(definition);
  for (const p of definition.profiles) checkRunProfile(composition, p);
  for (const p of definition.policies) p.check?.();
  // Built once here only to validate the settings (each run builds its own).
  createInputGuardrail(definition.guardrails?.input);
  createOutputGuardrail(definition.guardrails?.output);
  return composition;
}

/**
 * The registries of a definition without checking its profiles: what a workflow run builds. The
 * sandbox evaluates the app's modules for every run, so checking every profile's contract and
 * policies there would cost every run the whole app; a run checks its own profile
 * ({@link checkRunProfile}) and builds its own guardrails, and the worker process checks the whole
 * definition once at start ({@link composeAgentRun}).
 * @throws HarnessError `registry.conflict` when two items share a name and version, `registry.*` for an
 *   invalid evaluator name/version.
 */
export function registerAgentRun(definition: AgentRunDefinition): AgentRunComposition {
  const evaluators = createDefaultEvaluatorRegistry();
  for (const e of definition.evaluators ?? []) evaluators.register(e);
  return {
    profiles: registryOf<Profile>('profile', definition.profiles),
    policies: registryOf<Policy>('policy', definition.policies),
    evaluators,
    guardrails: definition.guardrails ?? {},
  };
}

/**
 * A profile builds what it defers ({@link Profile.check}), its completion contract names a registered
 * evaluator with params it accepts, and its policies are registered.
 * @throws as {@link composeAgentRun} for that profile.
 */
export function checkRunProfile(composition: AgentRunComposition, profile: Profile): void {
  profile.check?.();
  composition.evaluators.checkContract(profile.completion);
  checkPolicyBinding(profile, composition.policies);
}

/**
 * One definition from several (an app made of parts, a test or bench composition). Items keep their
 * order; a name and version that appears twice fails when the run composes (`registry.conflict`).
 * Guardrail settings apply to a whole workflow, so at most one part may set them.
 * @throws HarnessError `registry.conflict` when more than one part sets guardrails.
 */
export function combineDefinitions(...definitions: readonly AgentRunDefinition[]): AgentRunDefinition {
  const withGuardrails = definitions.filter((d) => d.guardrails !== undefined);
  if (withGuardrails.length > 1)
    throw new HarnessError('registry.conflict', 'more than one combined definition sets guardrails');
  return {
    profiles: definitions.flatMap((d) => d.profiles),
    policies: definitions.flatMap((d) => d.policies),
    evaluators: definitions.flatMap((d) => d.evaluators ?? []),
    ...(withGuardrails[0]?.guardrails ? { guardrails: withGuardrails[0].guardrails } : {}),
  };
}

/**
 * A profile's policy binding names only registered policies.
 * @throws HarnessError `profile.invalid` naming the profile and the policy.
 */
function checkPolicyBinding(profile: Profile, policies: NamedRegistry<Policy>): void {
  const label = versionedName(profile.name, profile.version);
  if (typeof profile.policies?.default !== 'string')
    throw new HarnessError('profile.invalid', `profile ${label} names no default policy (policies.default)`);
  for (const spec of allowedPolicies(profile)) {
    const [name = '', version = ''] = spec.split('@');
    if (!policies.find(name, version))
      throw new HarnessError(
        'profile.invalid',
        `profile ${label} may run under ${spec}, which is not a registered policy (name@vN)`,
      );
  }
}

/**
 * The policy a run of `profile` gets: the one the input names, else the profile's default.
 * `allowed` is false when the input names a policy the profile does not list.
 */
export function bindPolicy(
  profile: Profile,
  named: { readonly name: string; readonly version: string } | undefined,
): { readonly name: string; readonly version: string; readonly allowed: boolean } {
  if (named === undefined) {
    const [name = '', version = ''] = profile.policies.default.split('@');
    return { name, version, allowed: true };
  }
  return { ...named, allowed: allowedPolicies(profile).includes(versionedName(named.name, named.version)) };
}
