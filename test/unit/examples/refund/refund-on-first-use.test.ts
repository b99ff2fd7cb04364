/**
 * The refund app's policies and graph profile are built on first use (the workflow sandbox evaluates
 * their modules for every run, also for runs that never use them). Their configs are then checked
 * only when something first uses them: these tests build them, so a config error fails here rather
 * than in a run.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGraphProfile } from '../../../../src/core/runner/graph-profile.js';
import type { PolicyRequest } from '../../../../src/core/policy/policy.js';
import type { Profile } from '../../../../src/core/runner/profile.js';
import { REFUND_GRAPH, refundGraphProfile } from '../../../../apps/refund/workflow/refund-graph.js';
import { refundGraphStateSchema } from '../../../../apps/refund/workflow/refund-state.js';
import { refundAssistedPolicy, refundRulesPolicy } from '../../../../apps/refund/workflow/refund-policy.js';

const NOW = '2026-01-01T00:00:00.000Z';

const request = (tool: string, effect: 'read' | 'write', args?: Record<string, unknown>): PolicyRequest => ({
  stage: 'dispatch',
  tool: { name: tool, version: 'v1', effect },
  ...(args ? { args } : {}),
  now: NOW,
});

describe('refund policies built on first use', () => {
  it('build from their configs and decide as rules policies', () => {
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
});

describe('refund graph profile built on first use', () => {
  it('names what the built graph profile names, and the graph builds', () => {
    const built = createGraphProfile(REFUND_GRAPH);
    const fieldsOf = (p: Profile): Omit<Profile, 'run'> => ({
      name: p.name,
      version: p.version,
      kind: p.kind,
      completion: p.completion,
      tools: p.tools,
      policies: p.policies,
      ...(p.onBlockedOutput ? { onBlockedOutput: p.onBlockedOutput } : {}),
    });
    expect(fieldsOf(refundGraphProfile)).toEqual(fieldsOf(built));
    expect(Object.keys(refundGraphProfile).sort()).toEqual(Object.keys(built).sort());
  });

  it('builds its state schema once, as a strict zod object', () => {
    expect(REFUND_GRAPH.stateSchema).toBeInstanceOf(z.ZodObject);
    expect(REFUND_GRAPH.stateSchema).toBe(refundGraphStateSchema());
    expect(refundGraphStateSchema().safeParse({ unknownKey: 1 }).success).toBe(false);
  });
});
