import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isHarnessError } from '../../../../src/contract/errors.js';
import {
  AllowAllPolicy,
  composeAgentRun,
  createGoalProfile,
  createGraphProfile,
  type AgentRunDefinition,
} from '../../../../src/workflows/index.js';
import { RulesPolicy } from '../../../../src/workflows/policy/rules-policy.js';
import type { RulesPolicyConfig } from '../../../../src/workflows/policy/rules-schema.js';
import { dispatch, thrownBy } from './fixtures.js';
import { refundRules } from './refund-rules.js';

const verified = { 'order.owner_verified': true };
const broken = {
  ...refundRules,
  rules: [{ id: 'x', when: { tool: 'A B' }, decision: 'allow' }],
} as RulesPolicyConfig;
const answer = createGoalProfile({
  name: 'shop.answer',
  version: 'v1',
  instructions: 'Answer.',
  tools: [],
  policies: { default: 'allow_all@v1' },
  completion: { evaluator: { name: 'solution_delivered', version: 'v1' } },
});

describe('RulesPolicy.onFirstUse: a rules policy built when first used', () => {
  it('decides exactly as the policy built at once, with its name and version before it is built', () => {
    const deferred = RulesPolicy.onFirstUse(refundRules);
    const eager = new RulesPolicy(refundRules);
    expect([deferred.name, deferred.version]).toEqual([eager.name, eager.version]);
    for (const amount of [300, 5000.01, 20_000]) {
      const req = dispatch('refund.create', 'write', { amount }, verified);
      expect(deferred.evaluate(req)).toEqual(eager.evaluate(req));
      expect(deferred.explain(req)).toEqual(eager.explain(req));
    }
    expect(deferred.authorization).toEqual(eager.authorization);
  });

  it('a bad config throws nothing when defined, and policy.config_invalid when checked or used', () => {
    const deferred = RulesPolicy.onFirstUse(broken);
    expect(
      isHarnessError(
        thrownBy(() => deferred.check!()),
        'policy.config_invalid',
      ),
    ).toBe(true);
    const evaluated = thrownBy(() => deferred.evaluate(dispatch('refund.create', 'write', { amount: 1 })));
    expect(isHarnessError(evaluated, 'policy.config_invalid')).toBe(true);
  });

  it('composing a definition (the worker process at start) checks deferred policies and graph profiles', () => {
    const base: AgentRunDefinition = { profiles: [answer], policies: [new AllowAllPolicy()] };
    const badPolicy = thrownBy(() =>
      composeAgentRun({ ...base, policies: [...base.policies, RulesPolicy.onFirstUse(broken)] }),
    );
    expect(isHarnessError(badPolicy, 'policy.config_invalid')).toBe(true);
    // A start node that does not exist: creating the profile throws nothing, composing refuses it.
    const badGraph = createGraphProfile<Record<string, never>>({
      name: 'shop.graph',
      version: 'v1',
      start: 'missing',
      terminal: ['missing'],
      nodes: [],
      edges: [],
      tools: [],
      policies: { default: 'allow_all@v1' },
      completion: { evaluator: { name: 'solution_delivered', version: 'v1' } },
      initialState: () => ({}),
      stateSchema: z.object({}),
      conditions: {},
    });
    const refused = thrownBy(() => composeAgentRun({ ...base, profiles: [answer, badGraph] }));
    expect(isHarnessError(refused, 'graph.invalid')).toBe(true);
  });
});
