import { describe, expect, it } from 'vitest';
import type { PolicyDecision } from '../../../../src/contract/policy-decision.js';
import { AllowAllPolicy } from '../../../../src/workflows/policy/allow-all-policy.js';
import type { Policy, PolicyRequest } from '../../../../src/workflows/policy/policy.js';
import {
  authorizeDispatch,
  presentTools,
  recheckDecision,
} from '../../../../src/workflows/policy/present-tools.js';
import { RestrictionPolicy } from '../../../../src/workflows/policy/restriction-policy.js';
import { RulesPolicy } from '../../../../src/workflows/policy/rules-policy.js';
import { NOW, tool } from './fixtures.js';
import { refundRules } from './refund-rules.js';

function custom(evaluate: (req: PolicyRequest) => unknown): Policy {
  return { name: 'custom', version: 'v2', evaluate: evaluate as Policy['evaluate'] };
}

describe('presentTools', () => {
  const defs = [
    tool('order.get', 'read'),
    tool('refund.create', 'write'),
    tool('shell.exec', 'write'),
    tool('fs.read_file', 'read'),
  ];

  it('hides denied tools with their decisions and keeps the rest in order', () => {
    const policy = new RestrictionPolicy({
      allowedTools: ['order.get', 'refund.create', 'fs.read_file'],
      allowedEffects: ['read'],
    });
    const { visible, excluded } = presentTools(defs, policy, NOW);
    expect(visible.map((d) => d.name)).toEqual(['order.get', 'fs.read_file']);
    expect(excluded.map((e) => [e.name, e.version, e.decision.decision, e.decision.reasonCodes])).toEqual([
      ['refund.create', 'v1', 'deny', ['policy.effect_not_allowed']],
      ['shell.exec', 'v1', 'deny', ['policy.tool_not_allowed', 'policy.effect_not_allowed']],
    ]);
  });

  it('keeps require_confirmation and require_human tools visible and passes facts', () => {
    const confirmAll = new RulesPolicy({
      name: 'c',
      version: 'v1',
      rules: [],
      default: { decision: 'require_human' },
    });
    expect(presentTools(defs, confirmAll, NOW).visible).toHaveLength(4);
    const rules = new RulesPolicy(refundRules);
    expect(presentTools(defs, rules, NOW).excluded.map((e) => e.name)).toEqual(['refund.create']);
    expect(presentTools(defs, rules, NOW, { 'order.owner_verified': true }).excluded).toEqual([]);
  });

  it('sends presentation requests without arguments', () => {
    const seen: PolicyRequest[] = [];
    presentTools(
      [defs[0]!],
      custom((req) => (seen.push(req), new AllowAllPolicy({ name: 'custom', version: 'v2' }).evaluate(req))),
      NOW,
    );
    expect(seen).toEqual([
      { stage: 'presentation', tool: { name: 'order.get', version: 'v1', effect: 'read' }, now: NOW },
    ]);
  });

  it('hides a tool when the policy throws', () => {
    const r = presentTools(
      defs.slice(0, 1),
      custom(() => {
        throw new Error('boom');
      }),
      NOW,
    );
    expect(r.visible).toEqual([]);
    expect(r.excluded[0]?.decision).toEqual({
      decision: 'deny',
      policyVersion: 'custom@v2',
      reasonCodes: ['policy.evaluation_failed'],
      obligations: [],
    });
  });
});

describe('authorizeDispatch', () => {
  const refund = tool('refund.create', 'write');

  it('returns the policy decision for schema-valid arguments and facts', () => {
    const d = authorizeDispatch(new RulesPolicy(refundRules), refund, { amount: 6000 }, NOW, {
      'order.owner_verified': true,
    });
    expect(d).toMatchObject({
      decision: 'require_confirmation',
      obligations: ['limit.refund_amount=5000', 'confirm.user.v2'],
    });
    expect(authorizeDispatch(new RulesPolicy(refundRules), refund, { amount: 6000 }, NOW).decision).toBe(
      'deny',
    );
  });

  it('fails closed on a throwing policy', () => {
    expect(
      authorizeDispatch(
        custom(() => {
          throw new TypeError('x');
        }),
        refund,
        {},
        NOW,
      ).reasonCodes,
    ).toEqual(['policy.evaluation_failed']);
  });

  const good: PolicyDecision = {
    decision: 'allow',
    policyVersion: 'custom@v2',
    reasonCodes: ['custom.ok'],
    obligations: [],
  };
  it.each([
    ['a malformed decision', { decision: 'yes' }],
    ['an unknown kind', { ...good, decision: 'allow_twice' }],
    ['no reason code', { ...good, reasonCodes: [] }],
    ['a code in the reserved namespace', { ...good, reasonCodes: ['policy.whatever'] }],
    ['a bad obligation', { ...good, obligations: ['do anything'] }],
    ['an unparsable expiry', { ...good, expiresAt: 'soon' }],
    ['another policy version', { ...good, policyVersion: 'allow_all@v1' }],
  ])('denies with policy.decision_invalid for %s', (_label, decision) => {
    expect(
      authorizeDispatch(
        custom(() => decision),
        refund,
        {},
        NOW,
      ),
    ).toEqual({
      decision: 'deny',
      policyVersion: 'custom@v2',
      reasonCodes: ['policy.decision_invalid'],
      obligations: [],
    });
  });

  it('accepts a well-formed custom decision and denies one already expired', () => {
    expect(
      authorizeDispatch(
        custom(() => good),
        refund,
        {},
        NOW,
      ),
    ).toEqual(good);
    const stale = { ...good, expiresAt: '2026-07-15T11:59:59Z' };
    expect(
      authorizeDispatch(
        custom(() => stale),
        refund,
        {},
        NOW,
      ).reasonCodes,
    ).toEqual(['policy.decision_expired']);
  });
});

describe('recheckDecision', () => {
  const pending: PolicyDecision = {
    decision: 'require_confirmation',
    policyVersion: 'refund-cn@v18',
    reasonCodes: ['policy.rule_matched'],
    obligations: ['confirm.user.v2'],
    expiresAt: '2026-07-15T12:15:00.000Z',
  };

  it('keeps a decision until its expiry and denies from the expiry on', () => {
    expect(recheckDecision(pending, '2026-07-15T12:14:59.999Z')).toBe(pending);
    for (const now of ['2026-07-15T12:15:00.000Z', '2026-07-16T00:00:00Z', 'garbage']) {
      expect(recheckDecision(pending, now)).toEqual({
        decision: 'deny',
        policyVersion: 'refund-cn@v18',
        reasonCodes: ['policy.decision_expired'],
        obligations: [],
      });
    }
    const { expiresAt: _drop, ...forever } = pending;
    expect(recheckDecision(forever, '2099-01-01T00:00:00Z')).toBe(forever);
  });
});
