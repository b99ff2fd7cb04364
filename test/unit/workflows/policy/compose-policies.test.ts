import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../../src/contract/errors.js';
import type { DecisionKind, PolicyDecision } from '../../../../src/contract/policy-decision.js';
import { AllowAllPolicy } from '../../../../src/workflows/policy/allow-all-policy.js';
import { composePolicies } from '../../../../src/workflows/policy/compose-policies.js';
import { DECISION_STRICTNESS } from '../../../../src/workflows/policy/decision-merge.js';
import type { Policy } from '../../../../src/workflows/policy/policy.js';
import { RestrictionPolicy } from '../../../../src/workflows/policy/restriction-policy.js';
import { RulesPolicy } from '../../../../src/workflows/policy/rules-policy.js';
import { dispatch, presentation, thrownBy } from './fixtures.js';
import { refundRules } from './refund-rules.js';

function fixed(name: string, decision: DecisionKind, extra: Partial<PolicyDecision> = {}): Policy {
  return {
    name,
    version: 'v1',
    evaluate: () => ({
      decision,
      policyVersion: `${name}@v1`,
      reasonCodes: [`${name}.said_${decision}`],
      obligations: [],
      ...extra,
    }),
  };
}

describe('composePolicies', () => {
  it('orders strictness deny > require_human > require_confirmation > allow', () => {
    expect(DECISION_STRICTNESS).toEqual(['allow', 'require_confirmation', 'require_human', 'deny']);
    const kinds: DecisionKind[] = ['allow', 'require_confirmation', 'require_human', 'deny'];
    for (const a of kinds) {
      for (const b of kinds) {
        const winner = kinds[Math.max(kinds.indexOf(a), kinds.indexOf(b))];
        for (const order of [
          [a, b],
          [b, a],
        ] as const) {
          const composed = composePolicies('c', 'v1', [fixed('p', order[0]), fixed('q', order[1])]);
          expect(composed.evaluate(presentation('a.b', 'read')).decision).toBe(winner);
        }
      }
    }
  });

  it('keeps the reason codes of the winning kind, merges all obligations, takes the earliest expiry', () => {
    const composed = composePolicies('bundle', 'v7', [
      fixed('a', 'require_confirmation', {
        obligations: ['confirm.user.v2', 'mask.phone'],
        expiresAt: '2026-07-15T13:00:00Z',
      }),
      fixed('b', 'allow', {
        obligations: ['mask.phone', 'log.audit.high_risk'],
        expiresAt: '2026-07-15T12:30:00+00:00',
      }),
      fixed('c', 'require_confirmation', {
        reasonCodes: ['a.said_require_confirmation', 'c.extra'],
        obligations: [],
      }),
    ]);
    expect(composed.evaluate(presentation('a.b', 'read'))).toEqual({
      decision: 'require_confirmation',
      policyVersion: 'bundle@v7',
      reasonCodes: ['a.said_require_confirmation', 'c.extra'],
      obligations: ['confirm.user.v2', 'mask.phone', 'log.audit.high_risk'],
      expiresAt: '2026-07-15T12:30:00+00:00',
    });
  });

  it('compares expiries as instants, not strings', () => {
    const composed = composePolicies('c', 'v1', [
      fixed('a', 'allow', { expiresAt: '2026-07-15T20:00:00+08:00' }),
      fixed('b', 'allow', { expiresAt: '2026-07-15T13:00:00Z' }),
    ]);
    expect(composed.evaluate(presentation('a.b', 'read')).expiresAt).toBe('2026-07-15T20:00:00+08:00');
  });

  it('composes the real policies: restriction denies what the rules would allow', () => {
    const composed = composePolicies('refund-bundle', 'v1', [
      new AllowAllPolicy(),
      new RulesPolicy(refundRules),
      new RestrictionPolicy({ allowedTools: ['refund.create', 'order.get'] }),
    ]);
    const verified = { 'order.owner_verified': true };
    expect(composed.evaluate(dispatch('refund.create', 'write', { amount: 6000 }, verified))).toMatchObject({
      decision: 'require_confirmation',
      policyVersion: 'refund-bundle@v1',
      obligations: ['limit.refund_amount=5000', 'confirm.user.v2'],
    });
    expect(composed.evaluate(presentation('customer.get', 'read'))).toMatchObject({
      decision: 'deny',
      reasonCodes: ['policy.tool_not_allowed'],
      obligations: ['mask.phone'],
    });
  });

  it('refuses an empty or ambiguous composition', () => {
    expect(
      isHarnessError(
        thrownBy(() => composePolicies('c', 'v1', [])),
        'policy.config_invalid',
      ),
    ).toBe(true);
    const twice = thrownBy(() => composePolicies('c', 'v1', [new AllowAllPolicy(), new AllowAllPolicy()]));
    expect(isHarnessError(twice, 'policy.config_invalid')).toBe(true);
  });
});
