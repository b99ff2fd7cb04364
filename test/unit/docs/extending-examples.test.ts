import { describe, expect, it } from 'vitest';
import { run } from '../../../docs/examples/extend-policy-profile.js';
import { run as runWriteTool } from '../../../docs/examples/write-tool.js';
import { DEFAULT_AUTHORIZATION } from '../../../src/workflows/authz/authorization-rules.js';

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
    expect(r.described).toBe('Refund 6000.00 EUR on order ORD-1');
  });

  it('the authorization example: the keys it leaves out are the defaults', () => {
    const { authorization } = run();
    expect(authorization?.approve.map((rule) => [rule.id, rule.approvals])).toEqual([
      ['big-orders', 2],
      ['orders', 1],
    ]);
    expect(authorization?.cancel).toEqual({ roles: ['operator', 'shop_manager'], requester: true });
    expect(authorization?.reconcile).toEqual(DEFAULT_AUTHORIZATION.reconcile);
    expect(authorization?.input).toEqual(DEFAULT_AUTHORIZATION.input);
  });
});

describe('docs/extending.md: the write tool and its reconciler', () => {
  it('finds a lost order, says not_applied for one never placed, and never places one twice', async () => {
    const r = await runWriteTool();
    expect(r.lost).toEqual({
      outcome: 'succeeded',
      execution: { output: { orderId: 'ORD-1' }, externalId: 'ORD-1' },
    });
    expect(r.never).toEqual({ outcome: 'not_applied' });
    expect(r.again).toEqual({ output: { orderId: 'ORD-1' }, externalId: 'ORD-1' });
    expect(r.orders).toBe(1);
  });
});
