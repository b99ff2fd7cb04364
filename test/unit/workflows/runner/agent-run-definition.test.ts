import { describe, expect, it } from 'vitest';
import { refundDefinition } from '../../../../apps/refund/workflow/definition.js';
import { benchBundleDefinition } from '../../../../bench/workflows/definition.js';
import { isHarnessError } from '../../../../src/contract/errors.js';
import {
  AllowAllPolicy,
  combineDefinitions,
  composeAgentRun,
  createGoalProfile,
  RestrictionPolicy,
  type AgentRunDefinition,
} from '../../../../src/workflows/index.js';
import {
  bindPolicy,
  checkRunProfile,
  registerAgentRun,
} from '../../../../src/workflows/temporal/agent-run-definition.js';
import { runWorkerProcess } from '../../../../src/worker/main.js';

function errorOf(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  return undefined;
}

const answer = (version: string, evaluator = 'solution_delivered') =>
  createGoalProfile({
    name: 'shop.answer',
    version,
    instructions: 'Answer.',
    tools: [],
    policies: { default: 'allow_all@v1' },
    completion: { evaluator: { name: evaluator, version: 'v1' } },
  });

describe('defineAgentRun definitions', () => {
  it('compose: exact lookup, default evaluators, the app evaluators, the guardrail settings', () => {
    const c = composeAgentRun({
      ...refundDefinition,
      guardrails: { output: { verifiedDates: ['2026-12-24'] } },
    });
    expect(c.profiles.find('refund.graph', 'v1')).toBeDefined();
    expect(c.policies.find('refund.rules', 'v1')).toBeDefined();
    expect(c.evaluators.find('refund_outcome', 'v1')).toBeDefined();
    expect(c.guardrails.output?.verifiedDates).toEqual(['2026-12-24']);
  });

  it('refuse what does not compose, before any run: duplicates, unknown evaluators, bad guardrail settings', () => {
    const base: AgentRunDefinition = { profiles: [answer('v1')], policies: [new AllowAllPolicy()] };
    const dup = errorOf(() => composeAgentRun({ ...base, profiles: [answer('v1'), answer('v1')] }));
    expect(isHarnessError(dup) && dup.code).toBe('registry.conflict');
    const unknown = errorOf(() =>
      composeAgentRun({ ...base, profiles: [answer('v2', 'no_such_evaluator')] }),
    );
    expect(isHarnessError(unknown) && unknown.code).toBe('registry.not_found');
    const badGuardrails = errorOf(() =>
      composeAgentRun({ ...base, guardrails: { output: { mode: 'shout' as 'block' } } }),
    );
    expect(isHarnessError(badGuardrails)).toBe(true);
    const noPolicy = errorOf(() => composeAgentRun({ ...base, policies: [] }));
    expect(isHarnessError(noPolicy) && noPolicy.code).toBe('profile.invalid');
    expect((noPolicy as Error).message).toContain('allow_all@v1, which is not a registered policy');
    const badAllowed = errorOf(() =>
      composeAgentRun({
        ...base,
        profiles: [{ ...answer('v1'), policies: { default: 'allow_all@v1', allowed: ['loose'] } }],
      }),
    );
    expect(isHarnessError(badAllowed) && badAllowed.code).toBe('profile.invalid');
  });

  it('a run checks only its own profile; the worker process checks the whole definition before it connects', async () => {
    const good = answer('v1');
    const bad = answer('v2', 'no_such_evaluator');
    const definition: AgentRunDefinition = { profiles: [good, bad], policies: [new AllowAllPolicy()] };
    // What a workflow run builds: the registries, no profile checked yet.
    const composition = registerAgentRun(definition);
    expect(() => checkRunProfile(composition, good)).not.toThrow();
    const refused = errorOf(() => checkRunProfile(composition, bad));
    expect(isHarnessError(refused) && refused.code).toBe('registry.not_found');
    // The worker process refuses the definition before it installs a runtime or connects anywhere.
    const app = {
      name: 'broken',
      workflowsPath: '/nonexistent/workflows.ts',
      definition,
      createComposition: () => Promise.reject(new Error('must not be reached')),
    };
    await expect(runWorkerProcess(app)).rejects.toMatchObject({ code: 'registry.not_found' });
  });

  it('bind a policy: the default when none is named, only listed ones otherwise', () => {
    const profile = {
      ...answer('v1'),
      policies: { default: 'read_only@v1', allowed: ['allow_all@v1'] },
    };
    composeAgentRun({
      profiles: [profile],
      policies: [new AllowAllPolicy(), new RestrictionPolicy({ name: 'read_only', version: 'v1' })],
    });
    expect(bindPolicy(profile, undefined)).toEqual({ name: 'read_only', version: 'v1', allowed: true });
    expect(bindPolicy(profile, { name: 'allow_all', version: 'v1' }).allowed).toBe(true);
    expect(bindPolicy(profile, { name: 'read_only', version: 'v2' }).allowed).toBe(false);
    expect(bindPolicy(answer('v1'), { name: 'read_only', version: 'v1' }).allowed).toBe(false);
  });

  it('no built-in profile that can reach a write tool defaults to allow-all', () => {
    const c = composeAgentRun(benchBundleDefinition);
    const writes = new Set(['refund.create', 'git.commit', 'git.push', 'fs.write', 'pipeline.run']);
    for (const p of c.profiles.list()) {
      const full = c.profiles.find(p.name, p.version)!;
      if (!full.tools.some((t) => writes.has(t.split('@')[0]!))) continue;
      for (const spec of [full.policies.default, ...(full.policies.allowed ?? [])])
        expect(`${p.name}@${p.version} ${spec}`).not.toMatch(/allow_all/);
    }
  });

  it('combine parts; at most one part may set the guardrails', () => {
    const a: AgentRunDefinition = {
      profiles: [answer('v1')],
      policies: [new AllowAllPolicy()],
      guardrails: { output: {} },
    };
    const b: AgentRunDefinition = { profiles: [answer('v2')], policies: [] };
    expect(combineDefinitions(a, b).profiles).toHaveLength(2);
    expect(combineDefinitions(a, b).guardrails).toEqual({ output: {} });
    const both = errorOf(() => combineDefinitions(a, { ...b, guardrails: {} }));
    expect(isHarnessError(both) && both.code).toBe('registry.conflict');
  });
});
