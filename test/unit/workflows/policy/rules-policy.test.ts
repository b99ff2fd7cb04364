import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../../src/contract/errors.js';
import { RulesPolicy } from '../../../../src/workflows/policy/rules-policy.js';
import type { RulesPolicyConfig } from '../../../../src/workflows/policy/rules-schema.js';
import { dispatch, NOW, presentation, thrownBy } from './fixtures.js';
import { refundRules } from './refund-rules.js';

const policy = new RulesPolicy(refundRules);
const verified = { 'order.owner_verified': true };

function configError(config: unknown): string {
  const err = thrownBy(() => new RulesPolicy(config as RulesPolicyConfig));
  expect(isHarnessError(err, 'policy.config_invalid')).toBe(true);
  return (err as Error).message;
}

describe('RulesPolicy: the refund rules', () => {
  it('allows a small refund for a verified owner by default', () => {
    expect(policy.evaluate(dispatch('refund.create', 'write', { amount: 300 }, verified))).toEqual({
      decision: 'allow',
      policyVersion: 'refund-cn@v18',
      reasonCodes: ['policy.no_rule_matched'],
      obligations: [],
    });
  });

  it('requires confirmation above 5000 with the limit and confirmation obligations and an expiry', () => {
    expect(policy.evaluate(dispatch('refund.create', 'write', { amount: 5000.01 }, verified))).toEqual({
      decision: 'require_confirmation',
      policyVersion: 'refund-cn@v18',
      reasonCodes: ['policy.rule_matched', 'refund.amount_over_auto_limit'],
      obligations: ['limit.refund_amount=5000', 'confirm.user.v2'],
      expiresAt: '2026-07-15T12:15:00.000Z',
    });
    expect(policy.evaluate(dispatch('refund.create', 'write', { amount: 5000 }, verified)).decision).toBe(
      'allow',
    );
  });

  it('denies refund.create without the verified-owner fact, whatever the amount', () => {
    const factSets: (Record<string, string | boolean> | undefined)[] = [
      undefined,
      {},
      { 'order.owner_verified': false },
      { 'order.owner_verified': 'true' },
    ];
    for (const facts of factSets) {
      const d = policy.evaluate(dispatch('refund.create', 'write', { amount: 9000 }, facts));
      expect(d.decision).toBe('deny');
      expect(d.reasonCodes).toEqual(['policy.rule_matched', 'refund.owner_not_verified']);
      // all matching rules contribute obligations; the earliest expiry stays
      expect(d.obligations).toEqual(['limit.refund_amount=5000', 'confirm.user.v2', 'verify.order_owner']);
      expect(d.expiresAt).toBe('2026-07-15T12:15:00.000Z');
    }
  });

  it('hides refund.create at presentation until the owner is verified; argument rules wait for dispatch', () => {
    expect(policy.evaluate(presentation('refund.create', 'write')).decision).toBe('deny');
    expect(policy.evaluate(presentation('refund.create', 'write', verified))).toMatchObject({
      decision: 'allow',
      reasonCodes: ['policy.no_rule_matched'],
    });
  });

  it('strictest of all matching rules wins, independent of rule order', () => {
    const args = { amount: 9000, channel: 'manual' };
    const d = policy.evaluate(dispatch('refund.create', 'write', args, verified));
    expect(d.decision).toBe('require_human');
    expect(d.reasonCodes).toEqual(['policy.rule_matched', 'refund.high_risk_channel']);
    expect(d.obligations).toEqual(['limit.refund_amount=5000', 'confirm.user.v2', 'log.audit.high_risk']);
    const reversed = new RulesPolicy({ ...refundRules, rules: [...refundRules.rules].reverse() });
    const r = reversed.evaluate(dispatch('refund.create', 'write', args, verified));
    expect(r.decision).toBe('require_human');
    expect(r.expiresAt).toBe(d.expiresAt);
  });

  it('matches globs, tool lists and effects', () => {
    expect(policy.evaluate(dispatch('refund.cancel', 'write', { channel: 'wallet_new' })).decision).toBe(
      'require_human',
    );
    expect(policy.evaluate(dispatch('refunds.cancel', 'write', { channel: 'wallet_new' })).decision).toBe(
      'allow',
    );
    expect(policy.evaluate(presentation('order.get', 'read'))).toMatchObject({
      decision: 'allow',
      reasonCodes: ['policy.rule_matched'],
      obligations: ['mask.phone'],
    });
    expect(policy.evaluate(presentation('order.update', 'write')).obligations).toEqual([]);
    expect(policy.evaluate(presentation('customer.get', 'read')).obligations).toEqual(['mask.phone']);
    expect(policy.evaluate(presentation('customer.get_all', 'read')).obligations).toEqual([]);
  });

  it('explains which rules matched, as policy evidence references', () => {
    const e = policy.explain(dispatch('refund.create', 'write', { amount: 9000 }, verified));
    expect(e.matchedRuleIds).toEqual(['R001']);
    expect(e.evidence).toEqual(['policy://refund-cn/v18#R001']);
    expect(
      policy.explain(dispatch('refund.create', 'write', { amount: 1 }, verified)).matchedRuleIds,
    ).toEqual([]);
  });
});

describe('RulesPolicy: predicates', () => {
  const base = {
    name: 'p',
    version: 'v1',
    customReasonCodes: ['test.hit'],
    default: { decision: 'allow' as const },
  };
  const make = (op: string, value: unknown, pointer = '/x') =>
    new RulesPolicy({
      ...base,
      rules: [
        { id: 'r', when: { args: [{ pointer, op, value }] }, decision: 'deny', reasonCodes: ['test.hit'] },
      ],
    } as RulesPolicyConfig);
  const denies = (p: RulesPolicy, args: Record<string, unknown>) =>
    p.evaluate(dispatch('t.t', 'read', args)).decision === 'deny';

  it.each([
    ['gt', 5, { x: 6 }, true],
    ['gt', 5, { x: 5 }, false],
    ['gte', 5, { x: 5 }, true],
    ['lt', 5, { x: 4 }, true],
    ['lte', 5, { x: 6 }, false],
    ['gt', 5, { x: '9' }, false],
    ['eq', 'a', { x: 'a' }, true],
    ['eq', 1, { x: '1' }, false],
    ['eq', null, { x: null }, true],
    ['neq', 'a', { x: 'b' }, true],
    ['neq', 'a', {}, true],
    ['eq', 'a', {}, false],
    ['in', ['a', 'b'], { x: 'b' }, true],
    ['in', ['a', 'b'], { x: 'c' }, false],
    ['exists', true, { x: 0 }, true],
    ['exists', true, {}, false],
    ['exists', false, {}, true],
    ['eq', { a: 1 }, { x: { a: 1 } }, 'invalid'],
  ])('%s %j on %j -> %s', (op, value, args, expected) => {
    if (expected === 'invalid') {
      configError({
        ...base,
        rules: [{ id: 'r', when: { args: [{ pointer: '/x', op, value }] }, decision: 'deny' }],
      });
      return;
    }
    expect(denies(make(op, value), args)).toBe(expected);
  });

  it('resolves nested and escaped pointers', () => {
    expect(denies(make('eq', 1, '/a~1b/0/c~0d'), { 'a/b': [{ 'c~d': 1 }] })).toBe(true);
    expect(denies(make('exists', true, '/a/1'), { a: [1] })).toBe(false);
  });

  it('never matches argument rules at presentation', () => {
    expect(make('exists', false).evaluate(presentation('t.t', 'read')).decision).toBe('allow');
  });
});

describe('RulesPolicy: validation', () => {
  const ok: RulesPolicyConfig = {
    name: 'p',
    version: 'v1',
    rules: [{ id: 'r1', when: {}, decision: 'allow' }],
    default: { decision: 'deny' },
  };

  it('accepts a minimal config and applies the default with its codes', () => {
    const p = new RulesPolicy({
      ...ok,
      rules: [],
      default: { decision: 'deny', reasonCodes: ['policy.tool_not_allowed'] },
    });
    expect(p.evaluate(presentation('a.b', 'read'))).toEqual({
      decision: 'deny',
      policyVersion: 'p@v1',
      reasonCodes: ['policy.no_rule_matched', 'policy.tool_not_allowed'],
      obligations: [],
    });
  });

  it.each([
    [
      {
        ...ok,
        rules: [{ id: 'r1', when: { args: [{ pointer: '/a', op: 'gt', value: 'x' }] }, decision: 'deny' }],
      },
      'rules[0].when.args[0].value',
    ],
    [
      {
        ...ok,
        rules: [{ id: 'r1', when: { args: [{ pointer: 'a', op: 'eq', value: 1 }] }, decision: 'deny' }],
      },
      'rules[0].when.args[0].pointer',
    ],
    [
      {
        ...ok,
        rules: [{ id: 'r1', when: { args: [{ pointer: '/a', op: 'like', value: 1 }] }, decision: 'deny' }],
      },
      'rules[0].when.args[0].op',
    ],
    [
      {
        ...ok,
        rules: [{ id: 'r1', when: { facts: [{ fact: 'Bad Fact', op: 'eq', value: 1 }] }, decision: 'deny' }],
      },
      'rules[0].when.facts[0].fact',
    ],
    [{ ...ok, rules: [{ id: 'r1', when: { tool: 'Refund.*' }, decision: 'deny' }] }, 'rules[0].when.tool'],
    [{ ...ok, rules: [{ id: 'r1', when: { colour: 'red' }, decision: 'deny' }] }, 'rules[0].when'],
    [{ ...ok, rules: [{ id: 'r1', when: {}, decision: 'maybe' }] }, 'rules[0].decision'],
    [
      { ...ok, rules: [{ id: 'r1', when: {}, decision: 'deny', reasonCodes: ['refund.undeclared'] }] },
      'rules[0].reasonCodes[0]',
    ],
    [
      { ...ok, rules: [{ id: 'r1', when: {}, decision: 'deny', reasonCodes: ['policy.invented'] }] },
      'rules[0].reasonCodes[0]',
    ],
    [
      { ...ok, rules: [{ id: 'r1', when: {}, decision: 'deny', obligations: ['limit refund'] }] },
      'rules[0].obligations[0]',
    ],
    [
      { ...ok, rules: [{ id: 'r1', when: {}, decision: 'deny', expiresInSeconds: -5 }] },
      'rules[0].expiresInSeconds',
    ],
    [
      { ...ok, rules: [{ id: 'r1', when: { stage: 'presentation', args: [] }, decision: 'deny' }] },
      'rules[0].when.args',
    ],
    [{ ...ok, rules: [ok.rules[0]!, ok.rules[0]!] }, 'rules[1].id'],
    [{ ...ok, customReasonCodes: ['policy.mine'] }, 'customReasonCodes[0]'],
    [{ ...ok, default: { decision: 'deny', reasonCodes: ['x.undeclared'] } }, 'default.reasonCodes[0]'],
    [{ ...ok, default: undefined }, 'default'],
    [{ ...ok, name: 'Bad Name' }, 'name'],
    [{ ...ok, extra: true }, '(root)'],
  ])('refuses %j naming field %s', (config, field) => {
    expect(configError(config)).toContain(`${field}:`);
  });

  it('uses the workflow clock string for expiry and fails on an unusable clock', () => {
    const p = new RulesPolicy({
      ...ok,
      rules: [{ id: 'r1', when: {}, decision: 'allow', expiresInSeconds: 60 }],
    });
    expect(p.evaluate({ ...presentation('a.b', 'read'), now: '2026-07-15T23:59:30+08:00' }).expiresAt).toBe(
      '2026-07-15T16:00:30.000Z',
    );
    const err = thrownBy(() => p.evaluate({ ...presentation('a.b', 'read'), now: 'yesterday' }));
    expect(isHarnessError(err, 'policy.request_invalid')).toBe(true);
    expect(NOW).toBe('2026-07-15T12:00:00.000Z');
  });
});
