import {
  RulesPolicy,
  type AuthorizationRulesInput,
  type RuleCondition,
  type RulesPolicyConfig,
} from '../../../src/workflows/index.js';

/** A refund over the 5000.00 automatic limit, at dispatch. */
const OVER_AUTO_LIMIT: RuleCondition = {
  tool: 'refund.create',
  stage: 'dispatch',
  args: [{ pointer: '/amountCents', op: 'gt', value: 500_000 }],
};

/** Reads are allowed, phone numbers masked in the output. */
const READS: RulesPolicyConfig['rules'][number] = {
  id: 'reads',
  when: { effect: 'read' },
  decision: 'allow',
  reasonCodes: ['refund.read_allowed'],
  obligations: ['mask.phone'],
};

/**
 * Who may decide refunds (docs/authorization.md): refund approvers approve refunds, two distinct ones
 * above 5000.00 (the profile's confirmation counts as one); the customer who asked never approves.
 */
const refundAuthorization: AuthorizationRulesInput = {
  approve: [
    {
      id: 'large-refunds',
      when: { tool: 'refund.create', args: [{ pointer: '/amountCents', op: 'gt', value: 500_000 }] },
      roles: ['refund_approver'],
      approvals: 2,
    },
    { id: 'refunds', when: { tool: 'refund.create' }, roles: ['refund_approver'] },
    { id: 'other', roles: ['approver'] },
  ],
  reconcile: { roles: ['operator'] },
  input: { roles: ['operator'], requester: true },
  cancel: { roles: ['operator'], requester: true },
};

/**
 * `refund.rules@v1`, data not code: reads are allowed; `refund.create` is denied unless the order's
 * ownership was verified (a fact backed by an observed artifact); refunds above 5000.00 need an extra
 * confirmation by a second refund approver, the customer's own confirmation and an audit record;
 * everything else is denied. Refund approvers decide (`refundAuthorization`). Built on first use
 * (`RulesPolicy.onFirstUse`): a run under another policy parses none of it.
 */
export const refundRulesPolicy = RulesPolicy.onFirstUse({
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
      obligations: ['verify.order.owner_verified'],
    },
    {
      id: 'over-auto-limit',
      when: OVER_AUTO_LIMIT,
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
      obligations: ['verify.order.owner_verified', 'mask.phone'],
    },
    READS,
  ],
  default: { decision: 'deny', reasonCodes: ['policy.no_rule_matched'] },
  authorization: refundAuthorization,
});

/**
 * `refund.assisted@v1`, the refund assistant's policy. A goal profile cannot prove the order's owner
 * the way the refund graph does (no verified ownership fact), so every `refund.create` it proposes,
 * whether the model thought of it or a tool result told it to, waits for a person's approval; above
 * 5000.00 the approval also carries the high-risk obligations. Reads are allowed with phones masked;
 * everything else is denied. Built on first use, like {@link refundRulesPolicy}.
 */
export const refundAssistedPolicy = RulesPolicy.onFirstUse({
  name: 'refund.assisted',
  version: 'v1',
  customReasonCodes: ['refund.amount_over_auto_limit', 'refund.needs_approval', 'refund.read_allowed'],
  rules: [
    {
      id: 'over-auto-limit',
      when: OVER_AUTO_LIMIT,
      decision: 'require_human',
      reasonCodes: ['refund.amount_over_auto_limit'],
      obligations: ['limit.refund_amount=5000', 'log.audit.high_risk'],
      expiresInSeconds: 3600,
    },
    {
      id: 'refund-needs-approval',
      when: { tool: 'refund.create' },
      decision: 'require_human',
      reasonCodes: ['refund.needs_approval'],
      obligations: ['mask.phone'],
    },
    READS,
  ],
  default: { decision: 'deny', reasonCodes: ['policy.no_rule_matched'] },
  authorization: refundAuthorization,
});
