import { RulesPolicy } from '../../../src/core/index.js';

/**
 * `refund.rules@v1`, data not code: reads are allowed; `refund.create` is denied unless the order's
 * ownership was verified (a fact backed by an observed artifact); refunds above 5000.00 need an extra
 * confirmation with obligations recorded; everything else is denied.
 */
export const refundRulesPolicy = new RulesPolicy({
  name: 'refund.rules',
  version: 'v1',
  customReasonCodes: [
    'refund.owner_not_verified',
    'refund.amount_over_auto_limit',
    'refund.within_policy',
    'refund.read_allowed',
  ],
  rules: [
    {
      id: 'owner-must-be-verified',
      when: {
        tool: 'refund.create',
        stage: 'dispatch',
        facts: [{ fact: 'order.owner_verified', op: 'exists', value: false }],
      },
      decision: 'deny',
      reasonCodes: ['refund.owner_not_verified'],
      obligations: ['verify.order_owner'],
    },
    {
      id: 'over-auto-limit',
      when: {
        tool: 'refund.create',
        stage: 'dispatch',
        args: [{ pointer: '/amountCents', op: 'gt', value: 500_000 }],
      },
      decision: 'require_confirmation',
      reasonCodes: ['refund.amount_over_auto_limit'],
      obligations: ['limit.refund_amount=5000', 'confirm.user.v2', 'log.audit.high_risk'],
      expiresInSeconds: 3600,
    },
    {
      id: 'refund-within-policy',
      when: { tool: 'refund.create' },
      decision: 'allow',
      reasonCodes: ['refund.within_policy'],
      obligations: ['verify.order_owner', 'mask.phone'],
    },
    {
      id: 'reads',
      when: { effect: 'read' },
      decision: 'allow',
      reasonCodes: ['refund.read_allowed'],
      obligations: ['mask.phone'],
    },
  ],
  default: { decision: 'deny', reasonCodes: ['policy.no_rule_matched'] },
});
