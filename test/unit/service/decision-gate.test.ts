import { describe, expect, it } from 'vitest';
import { DEFAULT_AUTHORIZATION } from '../../../src/workflows/authz/authorization-rules.js';
import type { Caller } from '../../../src/service/caller-identity.js';
import { gateDecision, mayTakePending, type DecisionContext } from '../../../src/service/decision-gate.js';

/** The service's decision gate (docs/api.md, "Decisions"): refuses only what the run certainly would. */
const rules = {
  ...DEFAULT_AUTHORIZATION,
  approve: [
    {
      id: 'big',
      when: { tool: 'refund.create', args: [{ pointer: '/amountCents', op: 'gt' as const, value: 500 }] },
      roles: ['senior'],
      approvals: 2,
    },
    { id: 'refunds', when: { tool: 'refund.create' }, roles: ['refund_approver'], approvals: 1 },
  ],
};
const ctx = (over: Partial<DecisionContext> = {}): DecisionContext => ({
  runUser: 'C1',
  rules,
  pending: { actionId: 'a1', kind: 'human', tool: 'refund.create', expiresAt: null },
  customerWait: false,
  pendingArguments: { amountCents: 100 },
  decisions: [],
  ...over,
});
const who = (user: string, kind: Caller['kind'], roles: string[] = []): Caller => ({
  tenant: 't',
  user,
  kind,
  roles,
});

describe('decision gate', () => {
  it('request_more_info is judged like a rejection, and never at a customer confirmation', () => {
    const ask = (caller: Caller, c = ctx()) => gateDecision(caller, c, 'request_more_info')?.code;
    expect(ask(who('C1', 'customer'))).toBe('decision.customer_cannot_approve');
    expect(ask(who('C1', 'approver', ['refund_approver']))).toBe('decision.requester_cannot_approve');
    expect(ask(who('amy', 'approver', ['senior']))).toBe('decision.role_missing');
    expect(ask(who('amy', 'approver', ['refund_approver']))).toBeUndefined();
    // Asking twice is not approving twice.
    const asked = ctx({ decisions: [{ actionId: 'a1', decision: 'request_more_info', principal: 'amy' }] });
    expect(ask(who('amy', 'approver', ['refund_approver']), asked)).toBeUndefined();
    expect(ask(who('C1', 'customer'), ctx({ customerWait: true }))).toBe('decision.not_allowed');
  });

  it('refuses customers approving, requesters approving, missing roles and the same approver twice', () => {
    expect(gateDecision(who('C1', 'customer'), ctx(), 'approve')?.code).toBe(
      'decision.customer_cannot_approve',
    );
    expect(gateDecision(who('C1', 'approver', ['refund_approver']), ctx(), 'approve')?.code).toBe(
      'decision.requester_cannot_approve',
    );
    expect(gateDecision(who('amy', 'approver', ['senior']), ctx(), 'approve')?.code).toBe(
      'decision.role_missing',
    );
    expect(gateDecision(who('amy', 'approver', ['refund_approver']), ctx(), 'approve')).toBeUndefined();
    // The arguments pick the rule: a large refund needs the senior role.
    const big = ctx({ pendingArguments: { amountCents: 900 } });
    expect(gateDecision(who('amy', 'approver', ['refund_approver']), big, 'approve')?.code).toBe(
      'decision.role_missing',
    );
    expect(gateDecision(who('sue', 'approver', ['senior']), big, 'approve')).toBeUndefined();
    // Without the arguments, every rule that could match counts: never refuse what the run could accept.
    expect(
      gateDecision(who('sue', 'approver', ['senior']), ctx({ pendingArguments: undefined }), 'approve'),
    ).toBeUndefined();
    const twice = ctx({
      decisions: [{ actionId: 'a1', decision: 'approve', principal: 'sue' }],
      pendingArguments: { amountCents: 900 },
    });
    expect(gateDecision(who('sue', 'approver', ['senior']), twice, 'approve')?.code).toBe(
      'decision.same_approver',
    );
    expect(
      gateDecision(
        who('amy', 'operator', ['operator']),
        ctx({ pending: { actionId: 'a1', kind: 'human', tool: 'x.y', expiresAt: null } }),
        'approve',
      )?.code,
    ).toBe('decision.no_rule');
  });

  it('lets only the run customer confirm or decline at a customer wait', () => {
    const wait = ctx({ customerWait: true });
    expect(gateDecision(who('C1', 'customer'), wait, 'confirm')).toBeUndefined();
    expect(gateDecision(who('C1', 'customer'), wait, 'reject')).toBeUndefined();
    expect(gateDecision(who('C1', 'customer'), wait, 'approve')?.code).toBe(
      'decision.customer_confirmation_required',
    );
    expect(gateDecision(who('amy', 'approver', ['refund_approver']), wait, 'confirm')?.code).toBe(
      'decision.not_the_customer',
    );
    expect(gateDecision(who('C1', 'customer'), ctx(), 'confirm')?.code).toBe('decision.not_a_confirmation');
    expect(mayTakePending(who('C1', 'customer'), wait)).toBe(true);
    expect(mayTakePending(who('amy', 'approver', ['refund_approver']), wait)).toBe(false);
  });

  it('applies the input, cancel and reconcile rules; unknown rules leave the check to the run', () => {
    expect(gateDecision(who('C1', 'customer'), ctx(), 'cancel')).toBeUndefined();
    expect(gateDecision(who('C1', 'customer'), ctx(), 'reconcile')?.code).toBe('decision.role_missing');
    expect(gateDecision(who('ops', 'operator', ['operator']), ctx(), 'reconcile')).toBeUndefined();
    expect(gateDecision(who('ops', 'approver', ['refund_approver']), ctx(), 'cancel')?.code).toBe(
      'decision.role_missing',
    );
    const noRequester = ctx({ rules: { ...rules, input: { roles: ['operator'], requester: false } } });
    expect(gateDecision(who('C1', 'customer'), noRequester, 'input')?.code).toBe('decision.role_missing');
    expect(
      gateDecision(who('ops', 'operator', ['viewer']), ctx({ rules: undefined }), 'approve'),
    ).toBeUndefined();
  });
});
