/**
 * The refund app's policies (`RulesPolicy.onFirstUse`) and graph profile (`createGraphProfile`) are
 * built on first use: the workflow sandbox evaluates their modules for every run, also for runs that
 * never use them. Composing the definition (what the worker process does at start) builds and checks
 * them; these tests do that and check what they decide.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { PolicyRequest } from '../../../src/workflows/policy/policy.js';
import { composeAgentRun } from '../../../src/workflows/index.js';
import { refundDefinition } from '../../../apps/refund/workflow/definition.js';
import { REFUND_GRAPH, refundGraphProfile } from '../../../apps/refund/workflow/refund-graph.js';
import { refundGraphStateSchema } from '../../../apps/refund/workflow/refund-state.js';
import { refundAssistedPolicy, refundRulesPolicy } from '../../../apps/refund/workflow/refund-policy.js';

const NOW = '2026-01-01T00:00:00.000Z';

const request = (tool: string, effect: 'read' | 'write', args?: Record<string, unknown>): PolicyRequest => ({
  stage: 'dispatch',
  tool: { name: tool, version: 'v1', effect },
  ...(args ? { args } : {}),
  now: NOW,
});

describe('the refund app built on first use', () => {
  it('composes: every deferred policy and profile builds and checks', () => {
    const composition = composeAgentRun(refundDefinition);
    expect(composition.policies.find('refund.rules', 'v1')).toBe(refundRulesPolicy);
    expect(composition.profiles.find(REFUND_GRAPH.name, REFUND_GRAPH.version)).toBe(refundGraphProfile);
    expect(() => refundGraphProfile.check!()).not.toThrow();
  });

  it('its policies decide as rules policies, built once', () => {
    expect(`${refundRulesPolicy.name}@${refundRulesPolicy.version}`).toBe('refund.rules@v1');
    expect(`${refundAssistedPolicy.name}@${refundAssistedPolicy.version}`).toBe('refund.assisted@v1');
    for (const policy of [refundRulesPolicy, refundAssistedPolicy]) {
      expect(policy.authorization?.approve.map((r) => r.id)).toEqual(['large-refunds', 'refunds', 'other']);
      // built once: the same rules on every read
      expect(policy.authorization).toBe(policy.authorization);
      const read = policy.evaluate(request('order.read', 'read', { orderId: 'o-1' }));
      expect(read.decision).toBe('allow');
      expect(read.policyVersion).toBe(`${policy.name}@${policy.version}`);
      expect(read.obligations).toContain('mask.phone');
    }
    const refund = request('refund.create', 'write', { amountCents: 1_000 });
    expect(refundRulesPolicy.evaluate(refund).decision).toBe('deny');
    expect(refundRulesPolicy.explain(refund).matchedRuleIds).toContain('owner-must-be-verified');
    expect(refundAssistedPolicy.evaluate(refund).decision).toBe('require_human');
  });

  it('its graph state schema is built once, as a strict zod object', () => {
    expect(REFUND_GRAPH.stateSchema).toBeInstanceOf(z.ZodObject);
    expect(REFUND_GRAPH.stateSchema).toBe(refundGraphStateSchema());
    expect(refundGraphStateSchema().safeParse({ unknownKey: 1 }).success).toBe(false);
  });
});
