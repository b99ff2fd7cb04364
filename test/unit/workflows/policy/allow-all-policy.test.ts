import { describe, expect, it } from 'vitest';
import { AllowAllPolicy } from '../../../../src/workflows/policy/allow-all-policy.js';
import { dispatch, presentation } from './fixtures.js';

describe('AllowAllPolicy', () => {
  it('allows any registered tool at presentation and dispatch with policy.allow_all', () => {
    const policy = new AllowAllPolicy();
    for (const req of [
      presentation('fs.read_file', 'read'),
      dispatch('refund.create', 'write', { amount: 1e9 }),
    ]) {
      expect(policy.evaluate(req)).toEqual({
        decision: 'allow',
        policyVersion: 'allow_all@v1',
        reasonCodes: ['policy.allow_all'],
        obligations: [],
      });
    }
  });

  it('stamps a configured name and version', () => {
    expect(
      new AllowAllPolicy({ name: 'dev', version: 'v3' }).evaluate(presentation('a.b', 'read')).policyVersion,
    ).toBe('dev@v3');
  });
});
