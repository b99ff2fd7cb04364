import { describe, expect, it } from 'vitest';
import type { PolicyFacts, ToolDefinition } from '../../../src/workflows/index.js';
import { authorizeDispatch, isValidReasonCode, presentTools } from '../../../src/workflows/index.js';
import { RETAIL_CANCEL_REASONS } from '../../../apps/retail/db/retail-types.js';
import { retailToolDefinitions } from '../../../apps/retail/workflow/retail-definitions.js';
import { RetailPolicy, retailPolicy, retailPolicyV1 } from '../../../apps/retail/workflow/retail-policy.js';
import { modifiedFact } from '../../../apps/retail/workflow/retail-facts.js';
import {
  CANCEL_REASONS,
  RETAIL_TOOL_RULES,
  RETAIL_TOOL_RULES_V1,
} from '../../../apps/retail/workflow/retail-policy-rules.js';
import { RetailReasonCodes as R } from '../../../apps/retail/workflow/retail-reason-codes.js';
import { RETAIL_TOOLS as T } from '../../../apps/retail/workflow/retail-tool-names.js';

const NOW = '2026-01-01T00:00:00.000Z';
const defs = new Map(retailToolDefinitions().map((d) => [d.name, d]));
const def = (name: string): ToolDefinition => defs.get(name)!;

/** The decision and its single code, through the harness's checks (an unfit decision would be policy.decision_invalid). */
function dispatch(tool: string, args: Record<string, unknown>, facts: PolicyFacts = {}): [string, string] {
  const d = authorizeDispatch(retailPolicy, def(tool), args, NOW, facts);
  expect(d.reasonCodes).toHaveLength(1);
  return [d.decision, d.reasonCodes[0]!];
}

const AUTH: PolicyFacts = { 'user.authenticated': true, 'user.id': 'sara_doe_496' };
const order = (status: string, extra: PolicyFacts = {}): PolicyFacts => ({
  ...AUTH,
  'order.id': '#W1',
  'order.owned_by_user': true,
  'order.status': status,
  'order.payment_method_id': 'credit_card_1',
  ...extra,
});
const ADDRESS = {
  address1: '1 Main St',
  address2: '',
  city: 'Austin',
  state: 'TX',
  country: 'USA',
  zip: '78701',
};
const ITEMS = { item_ids: ['1', '2'], new_item_ids: ['3', '4'], payment_method_id: 'paypal_2' };

/** Valid arguments of each write on order #W1 (pending or delivered as the action needs). */
const WRITES: [string, Record<string, unknown>, string][] = [
  [T.cancelPendingOrder, { order_id: '#W1', reason: 'no longer needed' }, 'pending'],
  [T.modifyPendingOrderAddress, { order_id: '#W1', ...ADDRESS }, 'pending'],
  [T.modifyPendingOrderPayment, { order_id: '#W1', payment_method_id: 'gift_card_9' }, 'pending'],
  [T.modifyPendingOrderItems, { order_id: '#W1', ...ITEMS }, 'pending'],
  [
    T.returnDeliveredOrderItems,
    { order_id: '#W1', item_ids: ['1'], payment_method_id: 'credit_card_1' },
    'delivered',
  ],
  [T.exchangeDeliveredOrderItems, { order_id: '#W1', ...ITEMS }, 'delivered'],
];

describe('retail.policy@v2: its decisions', () => {
  it('is retail.policy@v2 with default authorization, and every code is a valid custom code', () => {
    expect([retailPolicy.name, retailPolicy.version, retailPolicy.authorization]).toEqual([
      'retail.policy',
      'v2',
      undefined,
    ]);
    expect([retailPolicyV1.name, retailPolicyV1.version]).toEqual(['retail.policy', 'v1']);
    for (const code of Object.values(R)) expect([code, isValidReasonCode(code)]).toEqual([code, true]);
    expect(CANCEL_REASONS).toEqual(RETAIL_CANCEL_REASONS);
  });

  it("a write of a run whose customer is verified needs that customer's own confirmation (confirm.user.v1)", () => {
    const args = { order_id: '#W1', reason: 'no longer needed' };
    const signed = authorizeDispatch(retailPolicy, def(T.cancelPendingOrder), args, NOW, order('pending'), {
      verified: true,
      userId: 'C1',
      kind: 'customer',
    });
    expect(signed).toMatchObject({
      decision: 'allow',
      reasonCodes: [R.customerConfirmation],
      obligations: ['confirm.user.v1'],
    });
    const anonymous = authorizeDispatch(
      retailPolicy,
      def(T.cancelPendingOrder),
      args,
      NOW,
      order('pending'),
      { verified: false },
    );
    expect(anonymous).toMatchObject({ decision: 'require_confirmation', obligations: [] });
    const read = authorizeDispatch(retailPolicy, def(T.getOrderDetails), { order_id: '#W1' }, NOW, AUTH, {
      verified: true,
    });
    expect(read.obligations).toEqual([]);
  });

  it('a modification runs once per order and tool, even after the facts switched orders and back', () => {
    const args = { order_id: '#W1', ...ADDRESS };
    expect(dispatch(T.modifyPendingOrderAddress, args, order('pending'))).toEqual([
      'require_confirmation',
      R.customerConfirmation,
    ]);
    const after = order('pending', { [modifiedFact('#W1', 'modify_pending_order_address')]: true });
    expect(dispatch(T.modifyPendingOrderAddress, args, after)).toEqual(['deny', R.alreadyModified]);
    const pay = { order_id: '#W1', payment_method_id: 'paypal_2' };
    expect(dispatch(T.modifyPendingOrderPayment, pay, after)).toEqual([
      'require_confirmation',
      R.customerConfirmation,
    ]);
    const paid = order('pending', { [modifiedFact('#W1', 'modify_pending_order_payment')]: true });
    expect(dispatch(T.modifyPendingOrderPayment, pay, paid)).toEqual(['deny', R.alreadyModified]);
    expect(modifiedFact('#W4082615', 'modify_pending_order_address')).toBe(
      'modified.w4082615.modify_pending_order_address',
    );
    expect(modifiedFact('#12', 'x')).toBe('modified.order_12.x');
  });

  it('has a rule for every retail tool, with the registered effect', () => {
    expect(Object.keys(RETAIL_TOOL_RULES).sort()).toEqual([...defs.keys()].sort());
    for (const [tool, rule] of Object.entries(RETAIL_TOOL_RULES))
      expect([tool, rule.effect]).toEqual([tool, def(tool).effect]);
  });

  it('refuses tools outside the table, of another version or with another effect, at both stages', () => {
    const policy = new RetailPolicy();
    const ask = (
      name: string,
      version: string,
      effect: 'read' | 'write',
      stage: 'presentation' | 'dispatch',
    ) =>
      policy.evaluate({
        stage,
        tool: { name, version, effect },
        args: {},
        now: NOW,
        facts: order('pending'),
      });
    for (const stage of ['presentation', 'dispatch'] as const) {
      for (const d of [
        ask('other.tool', 'v1', 'read', stage),
        ask(T.calculate, 'v2', 'read', stage),
        ask(T.getOrderDetails, 'v1', 'write', stage),
        ask('constructor', 'v1', 'read', stage),
      ]) {
        expect([d.decision, d.reasonCodes]).toEqual(['deny', [R.unknownTool]]);
      }
    }
  });
});

describe('retail.policy@v2: authentication', () => {
  const preAuth: [string, Record<string, unknown>][] = [
    [T.findUserIdByEmail, { email: 'a@b.c' }],
    [T.findUserIdByNameZip, { first_name: 'A', last_name: 'B', zip: '1' }],
    [T.calculate, { expression: '1 + 1' }],
    [T.listAllProductTypes, {}],
    [T.getProductDetails, { product_id: '1' }],
    [T.getItemDetails, { item_id: '1' }],
    [T.transferToHumanAgents, { summary: 's' }],
  ];

  it('allows only lookups, calculate and the transfer before authentication', () => {
    for (const [tool, args] of preAuth)
      expect([tool, ...dispatch(tool, args)]).toEqual([tool, 'allow', R.readAllowed]);
    const others = [...defs.keys()].filter((t) => !preAuth.some(([p]) => p === t));
    expect(others).toHaveLength(9);
    for (const tool of others)
      expect([tool, ...dispatch(tool, { order_id: '#W1', user_id: 'sara_doe_496' })]).toEqual([
        tool,
        'deny',
        R.notAuthenticated,
      ]);
  });

  it('does not count user.authenticated without user.id as authenticated', () => {
    expect(dispatch(T.getOrderDetails, { order_id: '#W1' }, { 'user.authenticated': true })).toEqual([
      'deny',
      R.notAuthenticated,
    ]);
  });

  it('allows every read after authentication, a second lookup included', () => {
    for (const [tool, args] of preAuth) expect(dispatch(tool, args, AUTH)[0]).toBe('allow');
    const profiled = { ...AUTH, 'user.orders': '|#W1|#W9|' };
    expect(dispatch(T.getOrderDetails, { order_id: '#W9' }, profiled)).toEqual(['allow', R.readAllowed]);
    expect(dispatch(T.getUserDetails, { user_id: 'sara_doe_496' }, AUTH)).toEqual(['allow', R.readAllowed]);
  });

  it('presentation hides writes before authentication only, and shows every read', () => {
    const before = presentTools(retailToolDefinitions(), retailPolicy, NOW, {});
    expect(before.excluded.map((e) => [e.name, e.decision.reasonCodes[0]])).toEqual(
      retailToolDefinitions()
        .filter((d) => d.effect === 'write')
        .map((d) => [d.name, R.notAuthenticated]),
    );
    const after = presentTools(retailToolDefinitions(), retailPolicy, NOW, AUTH);
    expect(after.excluded).toEqual([]);
  });
});

describe('retail.policy@v2: one customer', () => {
  it('v1 (kept for the runs that pinned it) reads any order once authenticated; v2 does not', () => {
    const v1 = (args: Record<string, unknown>) => {
      const d = authorizeDispatch(retailPolicyV1, def(T.getOrderDetails), args, NOW, AUTH);
      return [d.decision, d.reasonCodes[0]];
    };
    expect(v1({ order_id: '#W2' })).toEqual(['allow', R.readAllowed]);
    expect(dispatch(T.getOrderDetails, { order_id: '#W2' }, AUTH)).toEqual(['deny', R.profileNotRead]);
    for (const [tool, rule] of Object.entries(RETAIL_TOOL_RULES_V1))
      if (tool !== T.getOrderDetails) expect(RETAIL_TOOL_RULES[tool]).toBe(rule);
  });

  it("reads an order only once the profile lists it as the customer's", () => {
    expect(dispatch(T.getOrderDetails, { order_id: '#W1' }, AUTH)).toEqual(['deny', R.profileNotRead]);
    const profiled = { ...AUTH, 'user.orders': '|#W1|#W12|' };
    expect(dispatch(T.getOrderDetails, { order_id: '#W1' }, profiled)).toEqual(['allow', R.readAllowed]);
    expect(dispatch(T.getOrderDetails, { order_id: '#W12' }, profiled)).toEqual(['allow', R.readAllowed]);
    for (const id of ['#W2', '#W', 'W1', '#W1|#W12', '', 7, undefined])
      expect(dispatch(T.getOrderDetails, { order_id: id }, profiled)).toEqual(['deny', R.otherUser]);
    expect(dispatch(T.getOrderDetails, { order_id: '#W1' }, { ...AUTH, 'user.orders': '||' })).toEqual([
      'deny',
      R.otherUser,
    ]);
  });

  it('refuses get_user_details and modify_user_address for another user', () => {
    expect(dispatch(T.getUserDetails, { user_id: 'other_1' }, AUTH)).toEqual(['deny', R.otherUser]);
    expect(dispatch(T.modifyUserAddress, { user_id: 'other_1', ...ADDRESS }, AUTH)).toEqual([
      'deny',
      R.otherUser,
    ]);
  });

  it('asks the customer to confirm a change of their own address', () => {
    expect(dispatch(T.modifyUserAddress, { user_id: 'sara_doe_496', ...ADDRESS }, AUTH)).toEqual([
      'require_confirmation',
      R.customerConfirmation,
    ]);
  });
});

describe('retail.policy@v2: order writes', () => {
  it.each(WRITES)('%s passes on the verified order and asks for confirmation', (tool, args, status) => {
    expect(dispatch(tool, args, order(status))).toEqual(['require_confirmation', R.customerConfirmation]);
  });

  it.each(WRITES)('%s is refused on an order not read, or read but another', (tool, args, status) => {
    expect(dispatch(tool, args, AUTH)).toEqual(['deny', R.orderNotVerified]);
    expect(dispatch(tool, args, order(status, { 'order.id': '#W2' }))).toEqual(['deny', R.orderNotVerified]);
    const unknownOwner: Record<string, string | number | boolean> = { ...order(status) };
    delete unknownOwner['order.owned_by_user'];
    expect(dispatch(tool, args, unknownOwner)).toEqual(['deny', R.orderNotVerified]);
  });

  it.each(WRITES)('%s is refused on another user’s order', (tool, args, status) => {
    expect(dispatch(tool, args, order(status, { 'order.owned_by_user': false }))).toEqual([
      'deny',
      R.otherUser,
    ]);
  });

  it.each(WRITES)('%s is refused in any status but its own', (tool, args, status) => {
    for (const other of [
      'pending',
      'pending (item modified)',
      'processed',
      'delivered',
      'cancelled',
      'return requested',
      'exchange requested',
    ]) {
      if (other === status) continue;
      expect([other, ...dispatch(tool, args, order(other))]).toEqual([other, 'deny', R.orderStatus]);
    }
    const noStatus: Record<string, string | number | boolean> = { ...order(status) };
    delete noStatus['order.status'];
    expect(dispatch(tool, args, noStatus)).toEqual(['deny', R.orderStatus]);
  });

  it('after an item modification the order can be neither cancelled nor modified again', () => {
    const modified = order('pending (item modified)');
    for (const [tool, args] of WRITES.slice(0, 4))
      expect(dispatch(tool, args, modified)).toEqual(['deny', R.orderStatus]);
  });
});

describe('retail.policy@v2: action details', () => {
  it('accepts only the two cancellation reasons', () => {
    for (const reason of CANCEL_REASONS)
      expect(dispatch(T.cancelPendingOrder, { order_id: '#W1', reason }, order('pending'))[0]).toBe(
        'require_confirmation',
      );
    expect(
      dispatch(T.cancelPendingOrder, { order_id: '#W1', reason: 'too expensive' }, order('pending')),
    ).toEqual(['deny', R.cancelReason]);
  });

  it('refuses a payment change to the original payment method', () => {
    const args = { order_id: '#W1', payment_method_id: 'credit_card_1' };
    expect(dispatch(T.modifyPendingOrderPayment, args, order('pending'))).toEqual([
      'deny',
      R.paymentMethodUnchanged,
    ]);
  });

  it('refunds a return only to the original payment method or a gift card', () => {
    const ret = (payment_method_id: string) =>
      dispatch(
        T.returnDeliveredOrderItems,
        { order_id: '#W1', item_ids: ['1'], payment_method_id },
        order('delivered'),
      );
    expect(ret('credit_card_1')[0]).toBe('require_confirmation');
    expect(ret('gift_card_7')[0]).toBe('require_confirmation');
    expect(ret('paypal_2')).toEqual(['deny', R.refundMethod]);
    expect(ret('credit_card_2')).toEqual(['deny', R.refundMethod]);
  });

  it.each([T.modifyPendingOrderItems, T.exchangeDeliveredOrderItems])(
    '%s pairs each item with a different new item',
    (tool) => {
      const status = tool === T.modifyPendingOrderItems ? 'pending' : 'delivered';
      const ask = (item_ids: string[], new_item_ids: string[]) =>
        dispatch(
          tool,
          { order_id: '#W1', item_ids, new_item_ids, payment_method_id: 'paypal_2' },
          order(status),
        );
      expect(ask(['1', '2'], ['3'])).toEqual(['deny', R.itemsUnpaired]);
      expect(ask(['1', '2'], ['3', '2'])).toEqual(['deny', R.itemUnchanged]);
      expect(ask(['1', '1'], ['3', '4'])[0]).toBe('require_confirmation');
    },
  );

  it('presentation, with no arguments, shows writes once authenticated whatever the order facts', () => {
    for (const [tool] of WRITES) {
      const d = presentTools([def(tool)], retailPolicy, NOW, AUTH);
      expect(d.visible.map((v) => v.name)).toEqual([tool]);
    }
  });
});
