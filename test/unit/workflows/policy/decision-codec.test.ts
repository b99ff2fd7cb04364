import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../../src/contract/errors.js';
import type { PolicyDecision } from '../../../../src/contract/policy-decision.js';
import { PolicyDecisionSchema } from '../../../../src/contract/policy-decision.js';
import {
  decodeDecision,
  encodeDecision,
  parseDecision,
} from '../../../../src/workflows/policy/decision-codec.js';
import { RulesPolicy } from '../../../../src/workflows/policy/rules-policy.js';
import { dispatch, thrownBy } from './fixtures.js';
import { refundRules } from './refund-rules.js';

const decisionArb: fc.Arbitrary<PolicyDecision> = fc.record(
  {
    decision: fc.constantFrom('allow', 'deny', 'require_confirmation', 'require_human'),
    policyVersion: fc.stringMatching(/^[a-z]{1,8}@v[1-9]$/),
    reasonCodes: fc.uniqueArray(
      fc.stringMatching(/^[a-z]{1,6}\.[a-z_]{1,8}$/).filter((c) => !c.startsWith('policy.')),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
    obligations: fc.array(fc.stringMatching(/^[a-z]{1,6}\.[a-z_]{1,8}(=[0-9]{1,5})?$/), { maxLength: 4 }),
    expiresAt: fc
      .date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date('2100-01-01T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString()),
  },
  { requiredKeys: ['decision', 'policyVersion', 'reasonCodes', 'obligations'] },
);

describe('decision serialisation', () => {
  it('round-trips any fit decision through JSON and the domain schema', () => {
    fc.assert(
      fc.property(decisionArb, (d) => {
        const json = encodeDecision(d);
        expect(decodeDecision(json)).toEqual(d);
        expect(PolicyDecisionSchema.parse(JSON.parse(json))).toEqual(d);
        expect(encodeDecision(decodeDecision(json))).toBe(json);
      }),
    );
  });

  it('round-trips a real rules decision with expiry', () => {
    const d = new RulesPolicy(refundRules).evaluate(
      dispatch('refund.create', 'write', { amount: 6000 }, { 'order.owner_verified': true }),
    );
    expect(d.expiresAt).toBeDefined();
    expect(decodeDecision(encodeDecision(d))).toEqual(d);
  });

  it('encodes keys in a fixed order', () => {
    const a = encodeDecision({
      obligations: [],
      reasonCodes: ['x.y'],
      policyVersion: 'p@v1',
      decision: 'allow',
    });
    expect(a).toBe('{"decision":"allow","policyVersion":"p@v1","reasonCodes":["x.y"],"obligations":[]}');
  });

  it.each([
    ['not json', '{decision'],
    ['wrong kind', '{"decision":"ok","policyVersion":"p@v1","reasonCodes":["x.y"],"obligations":[]}'],
    ['missing obligations', '{"decision":"allow","policyVersion":"p@v1","reasonCodes":["x.y"]}'],
    ['bad code', '{"decision":"allow","policyVersion":"p@v1","reasonCodes":["X"],"obligations":[]}'],
    [
      'bad expiry',
      '{"decision":"allow","policyVersion":"p@v1","reasonCodes":["x.y"],"obligations":[],"expiresAt":"tomorrow"}',
    ],
  ])('refuses %s with policy.decision_invalid', (_label, json) => {
    expect(
      isHarnessError(
        thrownBy(() => decodeDecision(json)),
        'policy.decision_invalid',
      ),
    ).toBe(true);
  });

  it('parses plain values the same way', () => {
    expect(
      isHarnessError(
        thrownBy(() => parseDecision(null)),
        'policy.decision_invalid',
      ),
    ).toBe(true);
  });
});
