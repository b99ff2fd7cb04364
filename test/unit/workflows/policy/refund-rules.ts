import type { RulesPolicyConfig } from '../../../../src/workflows/policy/rules-schema.js';

/** The refund rules of docs/policies.md (kept identical to the document). */
export const refundRules: RulesPolicyConfig = {
  name: 'refund-cn',
  version: 'v18',
  customReasonCodes: [
    'refund.amount_over_auto_limit',
    'refund.owner_not_verified',
    'refund.high_risk_channel',
  ],
  rules: [
    {
      id: 'R001',
      description: 'Refunds above the automatic limit need the user to confirm.',
      when: { tool: 'refund.create', args: [{ pointer: '/amount', op: 'gt', value: 5000 }] },
      decision: 'require_confirmation',
      reasonCodes: ['refund.amount_over_auto_limit'],
      obligations: ['limit.refund_amount=5000', 'confirm.user.v2'],
      expiresInSeconds: 900,
    },
    {
      id: 'R002',
      description: 'Only the verified owner of the order may be refunded.',
      when: { tool: 'refund.create', facts: [{ fact: 'order.owner_verified', op: 'neq', value: true }] },
      decision: 'deny',
      reasonCodes: ['refund.owner_not_verified'],
      obligations: ['verify.order_owner'],
    },
    {
      id: 'R003',
      description: 'Refunds to a new payment channel go to a person.',
      when: {
        tool: 'refund.*',
        stage: 'dispatch',
        args: [{ pointer: '/channel', op: 'in', value: ['wallet_new', 'manual'] }],
      },
      decision: 'require_human',
      reasonCodes: ['refund.high_risk_channel'],
      obligations: ['log.audit.high_risk'],
      expiresInSeconds: 3600,
    },
    {
      id: 'R004',
      description: 'Reads of customer records mask phone numbers.',
      when: { tool: ['customer.get', 'order.*'], effect: 'read' },
      decision: 'allow',
      obligations: ['mask.phone'],
    },
  ],
  default: { decision: 'allow' },
};
