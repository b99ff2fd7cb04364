import { describe, expect, it } from 'vitest';
import { refundDefinition } from '../../../apps/refund/workflow/definition.js';
import { isHarnessError } from '../../../src/contract/errors.js';
import {
  combineDefinitions,
  composeAgentRun,
  createGoalProfile,
  type AgentRunDefinition,
} from '../../../src/core/index.js';

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
    const base: AgentRunDefinition = { profiles: [answer('v1')], policies: [] };
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
  });

  it('combine parts; at most one part may set the guardrails', () => {
    const a: AgentRunDefinition = { profiles: [answer('v1')], policies: [], guardrails: { output: {} } };
    const b: AgentRunDefinition = { profiles: [answer('v2')], policies: [] };
    expect(combineDefinitions(a, b).profiles).toHaveLength(2);
    expect(combineDefinitions(a, b).guardrails).toEqual({ output: {} });
    const both = errorOf(() => combineDefinitions(a, { ...b, guardrails: {} }));
    expect(isHarnessError(both) && both.code).toBe('registry.conflict');
  });
});
