import { describe, expect, it } from 'vitest';
import { run } from '../../../docs/examples/extend-policy-profile.js';

describe('docs/extending.md: policy, profile and evaluator examples', () => {
  it('run as documented', () => {
    const r = run();
    expect(r.big).toMatchObject({
      decision: 'require_confirmation',
      policyVersion: 'refund.desk@v1',
      obligations: ['limit.refund_amount=5000', 'confirm.user.v2'],
    });
    expect(r.big.reasonCodes).toContain('refund.over_limit');
    expect(r.small.decision).toBe('allow');
    expect(r.verdict).toBe(true);
  });
});
