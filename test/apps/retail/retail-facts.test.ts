import { describe, expect, it } from 'vitest';
import type { PolicyFacts } from '../../../src/workflows/index.js';
import { retailFacts, retailFactsV1 } from '../../../apps/retail/workflow/retail-facts.js';
import { RETAIL_TOOLS as T } from '../../../apps/retail/workflow/retail-tool-names.js';

const call = (tool: string, output: unknown, status = 'succeeded', args: Record<string, unknown> = {}) => ({
  tool,
  version: 'v1',
  args,
  status,
  ...(output === undefined ? {} : { output }),
});

const AUTH: PolicyFacts = { 'user.authenticated': true, 'user.id': 'sara_doe_496' };
const order = (id: string, user: string, status: string, payment = 'credit_card_1') => ({
  order_id: id,
  user_id: user,
  status,
  items: [],
  payment_history: [{ transaction_type: 'payment', amount: 10, payment_method_id: payment }],
});
const ORDER_FACTS: PolicyFacts = {
  ...AUTH,
  'order.id': '#W1',
  'order.status': 'pending',
  'order.owned_by_user': true,
  'order.payment_method_id': 'credit_card_1',
};

describe('retailFacts: authentication', () => {
  it('authenticates the first user found, by email or by name and zip', () => {
    for (const tool of [T.findUserIdByEmail, T.findUserIdByNameZip]) {
      expect(retailFacts(call(tool, { result: 'sara_doe_496' }), {})).toEqual({
        set: { 'user.authenticated': true, 'user.id': 'sara_doe_496' },
      });
    }
  });

  it('changes nothing once a user is authenticated, whoever a later lookup finds', () => {
    expect(retailFacts(call(T.findUserIdByEmail, { result: 'other_user_1' }), AUTH)).toEqual({});
    expect(retailFacts(call(T.findUserIdByNameZip, { result: 'sara_doe_496' }), AUTH)).toEqual({});
  });

  it('derives nothing from a failed lookup or an odd output', () => {
    expect(retailFacts(call(T.findUserIdByEmail, undefined, 'failed'), {})).toEqual({});
    for (const output of [undefined, null, 'sara', [], {}, { result: 7 }, { result: '' }]) {
      expect(retailFacts(call(T.findUserIdByEmail, output), {})).toEqual({});
    }
  });
});

describe("retailFacts: the customer's profile", () => {
  const profile = (user: string, orders: unknown) => ({ user_id: user, name: {}, orders });

  it("lists the authenticated customer's orders from their profile", () => {
    expect(retailFacts(call(T.getUserDetails, profile('sara_doe_496', ['#W1', '#W22'])), AUTH)).toEqual({
      set: { 'user.orders': '|#W1|#W22|' },
    });
    expect(retailFacts(call(T.getUserDetails, profile('sara_doe_496', [])), AUTH)).toEqual({
      set: { 'user.orders': '|' },
    });
    // The v1 profiles' deriver (kept for the runs that pinned them) has no order list.
    expect(retailFactsV1(call(T.getUserDetails, profile('sara_doe_496', ['#W1'])), AUTH)).toEqual({});
  });

  it("establishes nothing from another user's profile, before authentication, or from an odd list", () => {
    expect(retailFacts(call(T.getUserDetails, profile('other_1', ['#W9'])), AUTH)).toEqual({});
    expect(retailFacts(call(T.getUserDetails, profile('sara_doe_496', ['#W9'])), {})).toEqual({});
    expect(retailFacts(call(T.getUserDetails, undefined, 'failed'), AUTH)).toEqual({});
    const odd = [undefined, 'W1', [7], [''], ['#W1|#W2'], ['x'.repeat(41)], Array(101).fill('#W1')];
    for (const orders of odd)
      expect(retailFacts(call(T.getUserDetails, profile('sara_doe_496', orders)), AUTH)).toEqual({});
  });
});

describe('retailFacts: orders', () => {
  it('records the order read: id, status, ownership and original payment method', () => {
    expect(retailFacts(call(T.getOrderDetails, order('#W1', 'sara_doe_496', 'pending')), AUTH)).toEqual({
      set: {
        'order.id': '#W1',
        'order.status': 'pending',
        'order.owned_by_user': true,
        'order.payment_method_id': 'credit_card_1',
      },
    });
  });

  it('records another user’s order as not owned, and any order as not owned before authentication', () => {
    const other = order('#W2', 'someone_else', 'delivered');
    expect(retailFacts(call(T.getOrderDetails, other), AUTH).set?.['order.owned_by_user']).toBe(false);
    expect(retailFacts(call(T.getOrderDetails, other), {}).set?.['order.owned_by_user']).toBe(false);
  });

  it('withdraws every order fact first when another order is read; a re-read withdraws nothing', () => {
    const held = { ...ORDER_FACTS, 'order.last_action': 'modify_pending_order_address' };
    const switched = retailFacts(
      call(T.getOrderDetails, order('#W2', 'sara_doe_496', 'delivered', 'paypal_2')),
      held,
    );
    expect(switched.withdraw).toEqual([
      'order.id',
      'order.last_action',
      'order.owned_by_user',
      'order.payment_method_id',
      'order.status',
    ]);
    expect(switched.set).toMatchObject({ 'order.id': '#W2', 'order.payment_method_id': 'paypal_2' });
    const reread = retailFacts(call(T.getOrderDetails, order('#W1', 'sara_doe_496', 'cancelled')), held);
    expect(reread.withdraw).toBeUndefined();
    expect(reread.set?.['order.status']).toBe('cancelled');
  });

  it('leaves out the payment method of an order without payments', () => {
    const bare = { ...order('#W1', 'sara_doe_496', 'pending'), payment_history: [] };
    expect(retailFacts(call(T.getOrderDetails, bare), AUTH).set).not.toHaveProperty(
      'order.payment_method_id',
    );
  });

  it('derives nothing from a failed read or an order without id or status', () => {
    expect(retailFacts(call(T.getOrderDetails, undefined, 'failed'), ORDER_FACTS)).toEqual({});
    expect(retailFacts(call(T.getOrderDetails, { status: 'pending' }), ORDER_FACTS)).toEqual({});
    expect(retailFacts(call(T.getOrderDetails, { order_id: '#W2', status: null }), ORDER_FACTS)).toEqual({});
  });
});

describe('retailFacts: writes', () => {
  it.each([
    [T.cancelPendingOrder, 'cancel_pending_order', 'cancelled'],
    [T.modifyPendingOrderAddress, 'modify_pending_order_address', 'pending'],
    [T.modifyPendingOrderItems, 'modify_pending_order_items', 'pending (item modified)'],
    [T.modifyPendingOrderPayment, 'modify_pending_order_payment', 'pending'],
    [T.returnDeliveredOrderItems, 'return_delivered_order_items', 'return requested'],
    [T.exchangeDeliveredOrderItems, 'exchange_delivered_order_items', 'exchange requested'],
  ])('%s on the order read sets its new status and the action', (tool, action, status) => {
    expect(retailFacts(call(tool, order('#W1', 'sara_doe_496', status)), ORDER_FACTS)).toEqual({
      set: { 'order.status': status, 'order.last_action': action, [`modified.w1.${action}`]: true },
    });
  });

  it('a write on another order withdraws the order facts; with none held, changes nothing', () => {
    const out = order('#W9', 'sara_doe_496', 'cancelled');
    expect(retailFacts(call(T.cancelPendingOrder, out), ORDER_FACTS)).toEqual({
      withdraw: ['order.id', 'order.owned_by_user', 'order.payment_method_id', 'order.status'],
    });
    expect(retailFacts(call(T.cancelPendingOrder, out), AUTH)).toEqual({});
  });

  it('a failed write changes nothing', () => {
    expect(retailFacts(call(T.cancelPendingOrder, undefined, 'failed'), ORDER_FACTS)).toEqual({});
    expect(retailFacts(call(T.cancelPendingOrder, { order_id: '#W1' }), ORDER_FACTS)).toEqual({});
  });

  it('modify_user_address of the customer records the action; of anyone else, nothing', () => {
    expect(retailFacts(call(T.modifyUserAddress, { user_id: 'sara_doe_496' }), AUTH)).toEqual({
      set: { 'user.last_action': 'modify_user_address' },
    });
    expect(retailFacts(call(T.modifyUserAddress, { user_id: 'x_1' }), AUTH)).toEqual({});
    expect(retailFacts(call(T.modifyUserAddress, undefined, 'failed'), AUTH)).toEqual({});
  });

  it('other tools and unknown tools change nothing, whatever they return', () => {
    for (const tool of [
      T.getUserDetails,
      T.calculate,
      T.transferToHumanAgents,
      'other.tool',
      'constructor',
    ]) {
      expect(retailFacts(call(tool, order('#W2', 'x', 'pending')), ORDER_FACTS)).toEqual({});
    }
  });
});
