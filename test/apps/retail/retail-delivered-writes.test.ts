import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RetailDb } from '../../../apps/retail/db/retail-db.js';
import { exportRetailDb } from '../../../apps/retail/db/retail-export.js';
import { RETAIL_TOOLS as T } from '../../../apps/retail/workflow/retail-tool-names.js';
import { failureOf, retailTemplate, runTool } from './retail-test-support.js';

// Expected values below were produced by τ²-bench's own tools.py (commit a2c0247) on db.json.
let db: RetailDb;
beforeEach(() => {
  db = retailTemplate().fresh();
});
afterEach(() => db.close());
const toolError = (message: string) => ({ code: 'retail.tool_error', message });

describe('exchange_delivered_order_items', () => {
  const exchange = {
    order_id: '#W3113816',
    item_ids: ['4843487907', '2206116040'],
    new_item_ids: ['7706410293', '9013366374'],
    payment_method_id: 'credit_card_5869505',
  };

  it('requests the exchange: sorted ids, method, round(sum of differences, 2); no money moves yet', async () => {
    const out = await runTool(db, T.exchangeDeliveredOrderItems, exchange);
    expect(out.output).toMatchObject({
      status: 'exchange requested',
      exchange_items: ['2206116040', '4843487907'],
      exchange_new_items: ['7706410293', '9013366374'],
      exchange_payment_method_id: 'credit_card_5869505',
      exchange_price_difference: 24.29, // (269.16 - 254.84) + (219.88 - 209.91)
      return_items: null,
      cancel_reason: null,
    });
    expect(db.order('#W3113816')?.payment_history).toHaveLength(1);
    expect(db.order('#W3113816')?.items[4]?.item_id).toBe('4843487907');
    // One return or exchange per delivered order.
    const { new_item_ids: _n, ...asReturn } = exchange;
    expect(await failureOf(db, T.returnDeliveredOrderItems, asReturn)).toEqual(
      toolError('Non-delivered order cannot be returned'),
    );
  });

  it('records a negative difference (a refund to come) and allows a gift card to receive it', async () => {
    const out = await runTool(db, T.exchangeDeliveredOrderItems, {
      ...exchange,
      item_ids: ['2206116040'],
      new_item_ids: ['3358616356'],
      payment_method_id: 'gift_card_6023546',
    });
    expect(out.output.exchange_price_difference).toBe(-12.58);
  });

  it('refuses a gift card that cannot pay the difference (tau2 task 105, issue #499)', async () => {
    expect(
      await failureOf(db, T.exchangeDeliveredOrderItems, {
        order_id: '#W4316152',
        item_ids: ['7292993796', '7292993796'],
        new_item_ids: ['3761330360', '9647374798'],
        payment_method_id: 'gift_card_7245904',
      }),
    ).toEqual(toolError('Insufficient gift card balance to pay for the price difference'));
    expect(db.order('#W4316152')?.status).toBe('delivered');
  });

  it('fails with the benchmark messages, in its order, and changes nothing', async () => {
    const before = exportRetailDb(db);
    const cases: [Partial<typeof exchange>, string][] = [
      [{ order_id: '#W6779827' }, 'Non-delivered order cannot be exchanged'],
      [{ item_ids: ['4843487907', '4843487907'] }, 'Number of 4843487907 not found.'],
      [{ new_item_ids: ['7706410293'] }, 'The number of items to be exchanged should match.'],
      [{ new_item_ids: ['9013366374', '7706410293'] }, 'Variant not found'],
      [{ new_item_ids: ['7706410293', '2206116040'] }, 'New item 2206116040 not found or available'],
      [{ payment_method_id: 'paypal_1' }, 'Payment method not found'],
    ];
    for (const [args, message] of cases) {
      expect(await failureOf(db, T.exchangeDeliveredOrderItems, { ...exchange, ...args })).toEqual(
        toolError(message),
      );
    }
    expect(exportRetailDb(db)).toStrictEqual(before);
  });
});

describe('return_delivered_order_items', () => {
  const ret = {
    order_id: '#W3113816',
    item_ids: ['4843487907', '2206116040'],
    payment_method_id: 'gift_card_6023546',
  };

  it('requests the return to a gift card: sorted items, status return requested, no balance change', async () => {
    const out = await runTool(db, T.returnDeliveredOrderItems, ret);
    expect(out.output).toMatchObject({
      status: 'return requested',
      return_items: ['2206116040', '4843487907'],
      return_payment_method_id: 'gift_card_6023546',
      exchange_items: null,
    });
    const card = db.paymentMethod('emma_santos_9753', 'gift_card_6023546');
    expect(card).toEqual({ source: 'gift_card', id: 'gift_card_6023546', balance: 36 });
  });

  it('accepts the original payment method and duplicate items the order has twice', async () => {
    const out = await runTool(db, T.returnDeliveredOrderItems, {
      order_id: '#W1840144',
      item_ids: ['8590708195', '8590708195'],
      payment_method_id: 'paypal_2306935',
    });
    expect(out.output.return_items).toEqual(['8590708195', '8590708195']);
  });

  it('fails with the benchmark messages, in its order', async () => {
    const cases: [Partial<typeof ret>, string][] = [
      [{ order_id: '#W6779827' }, 'Non-delivered order cannot be returned'],
      [{ payment_method_id: 'credit_card_0' }, 'Payment method not found'],
      [
        { order_id: '#W1840144', payment_method_id: 'credit_card_3240550' },
        'Payment method should be the original payment method',
      ],
      [
        {
          order_id: '#W1840144',
          item_ids: ['8590708195', '8590708195', '8590708195'],
          payment_method_id: 'paypal_2306935',
        },
        'Some item not found',
      ],
    ];
    for (const [args, message] of cases) {
      expect(await failureOf(db, T.returnDeliveredOrderItems, { ...ret, ...args })).toEqual(
        toolError(message),
      );
    }
  });
});

describe('modify_user_address', () => {
  it("replaces the user's default address and leaves their orders' addresses", async () => {
    const address = {
      address1: '9 Elm St',
      address2: 'Apt 2',
      city: 'Boston',
      state: 'MA',
      country: 'USA',
      zip: '02101',
    };
    const orderAddress = db.order('#W7678072')?.address;
    const out = await runTool(db, T.modifyUserAddress, { user_id: 'noah_brown_6181', ...address });
    expect(out.output.address).toEqual({ ...address });
    expect(db.user('noah_brown_6181')?.address).toEqual({ ...address });
    expect(db.order('#W7678072')?.address).toEqual(orderAddress);
    expect(await failureOf(db, T.modifyUserAddress, { user_id: 'nobody_1', ...address })).toEqual(
      toolError('User not found'),
    );
  });
});
