import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RetailDb } from '../../../apps/retail/db/retail-db.js';
import { RETAIL_TOOLS as T } from '../../../apps/retail/workflow/retail-tool-names.js';
import { failureOf, retailTemplate, runTool } from './retail-test-support.js';

// Expected values below were produced by τ²-bench's own tools.py (commit a2c0247) on db.json.
let db: RetailDb;
beforeEach(() => {
  db = retailTemplate().fresh();
});
afterEach(() => db.close());

const balance = (userId: string, cardId: string) => {
  const m = db.paymentMethod(userId, cardId);
  return m?.source === 'gift_card' ? m.balance : undefined;
};
const toolError = (message: string) => ({ code: 'retail.tool_error', message });

describe('cancel_pending_order', () => {
  it('cancels, records the reason, refunds every payment, credits a gift card at once', async () => {
    const out = await runTool(db, T.cancelPendingOrder, {
      order_id: '#W6779827',
      reason: 'no longer needed',
    });
    expect(out.output).toMatchObject({
      status: 'cancelled',
      cancel_reason: 'no longer needed',
      payment_history: [
        { transaction_type: 'payment', amount: 4079.45, payment_method_id: 'gift_card_7219486' },
        { transaction_type: 'refund', amount: 4079.45, payment_method_id: 'gift_card_7219486' },
      ],
    });
    expect(balance('ethan_lopez_6291', 'gift_card_7219486')).toBe(4128.45); // round(49.0 + 4079.45, 2)
    expect(db.order('#W6779827')?.status).toBe('cancelled');
  });

  it('refunds a credit card without touching any balance', async () => {
    await runTool(db, T.cancelPendingOrder, { order_id: '#W8367380', reason: 'ordered by mistake' });
    expect(db.order('#W8367380')?.payment_history.at(-1)).toEqual({
      transaction_type: 'refund',
      amount: 1003.22,
      payment_method_id: 'credit_card_5683823',
    });
    expect(balance('ava_nguyen_6646', 'gift_card_1994993')).toBe(78);
  });

  it('fails with the benchmark messages and changes nothing', async () => {
    expect(
      await failureOf(db, T.cancelPendingOrder, { order_id: '#W0000000', reason: 'no longer needed' }),
    ).toEqual(toolError('Order not found'));
    expect(
      await failureOf(db, T.cancelPendingOrder, { order_id: '#W2611340', reason: 'no longer needed' }),
    ).toEqual(toolError('Non-pending order cannot be cancelled'));
    expect(
      await failureOf(db, T.cancelPendingOrder, { order_id: '#W6779827', reason: 'changed my mind' }),
    ).toEqual(toolError('Invalid reason'));
    expect(db.order('#W6779827')?.status).toBe('pending');
    expect(balance('ethan_lopez_6291', 'gift_card_7219486')).toBe(49);
  });
});

describe('modify_pending_order_payment', () => {
  it('pays with a gift card: a payment and a refund appended, the card debited', async () => {
    const out = await runTool(db, T.modifyPendingOrderPayment, {
      order_id: '#W1080318',
      payment_method_id: 'gift_card_3749819',
    });
    expect(out.output.payment_history).toEqual([
      { transaction_type: 'payment', amount: 53.43, payment_method_id: 'credit_card_3577130' },
      { transaction_type: 'payment', amount: 53.43, payment_method_id: 'gift_card_3749819' },
      { transaction_type: 'refund', amount: 53.43, payment_method_id: 'credit_card_3577130' },
    ]);
    expect(out.output.status).toBe('pending');
    expect(balance('omar_kim_3528', 'gift_card_3749819')).toBe(37.57);
    // Only one payment may be moved; a cancel then refunds every entry of the history (as upstream).
    expect(
      await failureOf(db, T.modifyPendingOrderPayment, {
        order_id: '#W1080318',
        payment_method_id: 'credit_card_3577130',
      }),
    ).toEqual(toolError('There should be exactly one payment for a pending order'));
    await runTool(db, T.cancelPendingOrder, { order_id: '#W1080318', reason: 'ordered by mistake' });
    expect(db.order('#W1080318')?.payment_history).toHaveLength(6);
    expect(balance('omar_kim_3528', 'gift_card_3749819')).toBe(91);
  });

  it('moves a gift-card payment to a credit card: the old gift card is credited', async () => {
    await runTool(db, T.modifyPendingOrderPayment, {
      order_id: '#W6779827',
      payment_method_id: 'credit_card_9789590',
    });
    expect(balance('ethan_lopez_6291', 'gift_card_7219486')).toBe(4128.45);
  });

  it('fails with the benchmark messages and changes nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { order_id: '#W2611340', payment_method_id: 'gift_card_1725971' },
        'Non-pending order cannot be modified',
      ],
      [{ order_id: '#W8367380', payment_method_id: 'paypal_0000000' }, 'Payment method not found'],
      [
        { order_id: '#W8367380', payment_method_id: 'credit_card_5683823' },
        'The new payment method should be different from the current one',
      ],
      [
        { order_id: '#W8367380', payment_method_id: 'gift_card_1994993' },
        'Insufficient gift card balance to pay for the order',
      ],
    ];
    for (const [args, message] of cases) {
      expect(await failureOf(db, T.modifyPendingOrderPayment, args)).toEqual(toolError(message));
    }
    expect(db.order('#W8367380')?.payment_history).toHaveLength(1);
  });
});

describe('modify_pending_order_items', () => {
  const swap = {
    order_id: '#W9318778',
    item_ids: ['2143041831', '6342039236'],
    new_item_ids: ['7758198585', '7706410293'],
    payment_method_id: 'gift_card_7728021',
  };

  it('swaps items, refunds the unrounded difference to the gift card, and (as upstream) gives every item the last variant', async () => {
    const out = await runTool(db, T.modifyPendingOrderItems, swap);
    expect(out.output.status).toBe('pending (item modified)');
    const keyboard = { 'switch type': 'clicky', backlight: 'none', size: 'full size' };
    expect((out.output.items as unknown[]).slice(0, 2)).toEqual([
      { name: 'Bicycle', product_id: '9783735446', item_id: '7758198585', price: 269.16, options: keyboard },
      {
        name: 'Mechanical Keyboard',
        product_id: '1656367028',
        item_id: '7706410293',
        price: 269.16,
        options: keyboard,
      },
    ]);
    expect(out.output.payment_history).toEqual([
      { transaction_type: 'payment', amount: 3585.54, payment_method_id: 'gift_card_7728021' },
      { transaction_type: 'refund', amount: 135.03999999999994, payment_method_id: 'gift_card_7728021' },
    ]);
    expect(balance('lucas_martin_4549', 'gift_card_7728021')).toBe(203.04);
    // Once modified, the items cannot be modified again, but the address still can.
    expect(await failureOf(db, T.modifyPendingOrderItems, swap)).toEqual(
      toolError('Non-pending order cannot be modified'),
    );
    const address = {
      address1: '1 New St',
      address2: '',
      city: 'Austin',
      state: 'TX',
      country: 'USA',
      zip: '73301',
    };
    const moved = await runTool(db, T.modifyPendingOrderAddress, { order_id: '#W9318778', ...address });
    expect(moved.output.address).toEqual({ ...address });
  });

  it('charges a more expensive variant to a card as a payment of the unrounded difference', async () => {
    await runTool(db, T.modifyPendingOrderItems, {
      ...swap,
      item_ids: ['2143041831'],
      new_item_ids: ['3624655057'],
      payment_method_id: 'credit_card_7862034',
    });
    expect(db.order('#W9318778')?.payment_history.at(-1)).toEqual({
      transaction_type: 'payment',
      amount: 2195.04 - 2076.5,
      payment_method_id: 'credit_card_7862034',
    });
  });

  it('fails with the benchmark messages, in its order, and changes nothing', async () => {
    const cases: [Partial<typeof swap>, string][] = [
      [{ order_id: '#W2611340' }, 'Non-pending order cannot be modified'],
      [{ item_ids: ['2143041831', '2143041831'] }, '2143041831 not found'],
      [{ new_item_ids: ['7758198585'] }, 'The number of items to be exchanged should match'],
      [
        { new_item_ids: ['2143041831', '7706410293'] },
        'The new item id should be different from the old item id',
      ],
      [{ new_item_ids: ['7706410293', '7758198585'] }, 'Variant not found'],
      [{ new_item_ids: ['6170152315', '7706410293'] }, 'New item 6170152315 not found or available'],
      [{ payment_method_id: 'gift_card_0000000' }, 'Payment method not found'],
      [
        { item_ids: ['2143041831'], new_item_ids: ['3624655057'] },
        'Insufficient gift card balance to pay for the new item',
      ],
    ];
    for (const [args, message] of cases) {
      expect(await failureOf(db, T.modifyPendingOrderItems, { ...swap, ...args })).toEqual(
        toolError(message),
      );
    }
    expect(db.order('#W9318778')?.status).toBe('pending');
    expect(balance('lucas_martin_4549', 'gift_card_7728021')).toBe(68);
  });
});

describe('modify_pending_order_address', () => {
  it('fails on an order that is not pending', async () => {
    const address = { address1: 'a', address2: '', city: 'c', state: 's', country: 'USA', zip: '1' };
    expect(await failureOf(db, T.modifyPendingOrderAddress, { order_id: '#W2611340', ...address })).toEqual(
      toolError('Non-pending order cannot be modified'),
    );
    expect(await failureOf(db, T.modifyPendingOrderAddress, { order_id: '#W1', ...address })).toEqual(
      toolError('Order not found'),
    );
  });
});
