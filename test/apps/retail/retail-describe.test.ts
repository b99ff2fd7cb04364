import { describe, expect, it } from 'vitest';
import { describeRetailAction } from '../../../apps/retail/workflow/retail-describe.js';
import { retailToolDefinitions } from '../../../apps/retail/workflow/retail-definitions.js';
import { RETAIL_TOOLS as T } from '../../../apps/retail/workflow/retail-tool-names.js';
import { actionSummary } from '../../../src/workflows/runner/action-summary.js';

const say = (tool: string, args: Record<string, unknown>) =>
  describeRetailAction({ tool, version: 'v1', args });
const ADDRESS = {
  address1: '1 Main St',
  address2: 'Apt 2',
  city: 'Austin',
  state: 'TX',
  country: 'USA',
  zip: '78701',
};

describe('describeRetailAction', () => {
  it('names what the customer confirms for each write', () => {
    expect(say(T.cancelPendingOrder, { order_id: '#W123', reason: 'no longer needed' })).toBe(
      'Cancel order #W123 (reason: no longer needed)',
    );
    expect(say(T.modifyPendingOrderAddress, { order_id: '#W1', ...ADDRESS })).toBe(
      'Change the shipping address of order #W1 to 1 Main St, Apt 2, Austin, TX 78701, USA',
    );
    expect(say(T.modifyUserAddress, { user_id: 'sara_doe_496', ...ADDRESS, address2: '' })).toBe(
      'Change the default address of user sara_doe_496 to 1 Main St, Austin, TX 78701, USA',
    );
    expect(say(T.modifyPendingOrderPayment, { order_id: '#W1', payment_method_id: 'gift_card_1' })).toBe(
      'Pay order #W1 with gift_card_1 instead of its current payment method',
    );
    expect(
      say(T.returnDeliveredOrderItems, {
        order_id: '#W1',
        item_ids: ['1', '2'],
        payment_method_id: 'paypal_3',
      }),
    ).toBe('Return items [1, 2] of order #W1, refunded to paypal_3');
    const items = {
      order_id: '#W1',
      item_ids: ['1'],
      new_item_ids: ['9'],
      payment_method_id: 'credit_card_4',
    };
    expect(say(T.exchangeDeliveredOrderItems, items)).toBe(
      'Exchange items [1] of order #W1 for [9], the price difference paid or refunded with credit_card_4',
    );
    expect(say(T.modifyPendingOrderItems, items)).toBe(
      'Modify items [1] of order #W1 into [9], the price difference paid or refunded with credit_card_4 ' +
        "(the order's items cannot be modified again, nor the order cancelled)",
    );
  });

  it('describes every retail write, and no read', () => {
    for (const d of retailToolDefinitions()) {
      const text = say(d.name, {});
      expect([d.name, typeof text]).toEqual([d.name, d.effect === 'write' ? 'string' : 'undefined']);
    }
    expect(say('other.tool', { a: 1 })).toBeUndefined();
    expect(say('constructor', {})).toBeUndefined();
  });

  it('never throws on odd arguments: missing strings show as ?', () => {
    expect(say(T.cancelPendingOrder, { order_id: 7 })).toBe('Cancel order ? (reason: ?)');
    expect(say(T.returnDeliveredOrderItems, { item_ids: 'x' })).toBe(
      'Return items [?] of order ?, refunded to ?',
    );
    expect(
      describeRetailAction({ tool: T.cancelPendingOrder, version: 'v1', args: null as never }),
    ).toBeUndefined();
  });

  it('is what the harness shows as the request summary', () => {
    const def = retailToolDefinitions().find((d) => d.name === T.cancelPendingOrder)!;
    expect(actionSummary(describeRetailAction, def, { order_id: '#W1', reason: 'ordered by mistake' })).toBe(
      'Cancel order #W1 (reason: ordered by mistake)',
    );
  });
});
