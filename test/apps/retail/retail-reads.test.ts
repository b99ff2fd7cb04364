import { afterAll, describe, expect, it } from 'vitest';
import { RETAIL_TOOLS as T } from '../../../apps/retail/workflow/retail-tool-names.js';
import { dbJson, failureOf, retailTemplate, runTool } from './retail-test-support.js';

const db = retailTemplate().fresh();
afterAll(() => db.close());
const original = dbJson();

describe('retail read tools against db.json', () => {
  it('find_user_id_by_name_zip: names ignore case, the zip must match exactly', async () => {
    const args = { first_name: 'yUSUF', last_name: 'ROSSI', zip: '19122' };
    expect((await runTool(db, T.findUserIdByNameZip, args)).output).toEqual({ result: 'yusuf_rossi_9620' });
    expect(await failureOf(db, T.findUserIdByNameZip, { ...args, zip: '19123' })).toEqual({
      code: 'retail.tool_error',
      message: 'User not found',
    });
  });

  it('find_user_id_by_email: ignores case; an unknown email is User not found', async () => {
    const out = await runTool(db, T.findUserIdByEmail, { email: 'Noah.Brown7922@EXAMPLE.com' });
    expect(out.output).toEqual({ result: 'noah_brown_6181' });
    expect(await failureOf(db, T.findUserIdByEmail, { email: 'nobody@example.com' })).toEqual({
      code: 'retail.tool_error',
      message: 'User not found',
    });
  });

  it('get_order_details: the order as db.json has it, every unset optional field null', async () => {
    const out = await runTool(db, T.getOrderDetails, { order_id: '#W2611340' });
    expect(out.output).toStrictEqual({
      ...original.orders['#W2611340'],
      cancel_reason: null,
      exchange_items: null,
      exchange_new_items: null,
      exchange_payment_method_id: null,
      exchange_price_difference: null,
      return_items: null,
      return_payment_method_id: null,
    });
    expect(out.output.status).toBe('processed');
    expect(await failureOf(db, T.getOrderDetails, { order_id: 'W2611340' })).toEqual({
      code: 'retail.tool_error',
      message: 'Order not found',
    });
  });

  it('get_product_details: the product with all its variants; an item id is not a product id', async () => {
    const out = await runTool(db, T.getProductDetails, { product_id: '9523456873' });
    expect(out.output).toStrictEqual(original.products['9523456873']);
    expect(out.output.name).toBe('T-Shirt');
    expect(await failureOf(db, T.getProductDetails, { product_id: '9612497925' })).toEqual({
      code: 'retail.tool_error',
      message: 'Product not found',
    });
  });

  it('get_item_details: the variant; a product id is not an item id', async () => {
    const out = await runTool(db, T.getItemDetails, { item_id: '9612497925' });
    expect(out.output).toStrictEqual({
      item_id: '9612497925',
      options: { color: 'blue', size: 'M', material: 'cotton', style: 'crew neck' },
      available: true,
      price: 50.88,
    });
    expect(await failureOf(db, T.getItemDetails, { item_id: '9523456873' })).toEqual({
      code: 'retail.tool_error',
      message: 'Item not found',
    });
  });

  it('get_user_details: the user with payment methods (only gift cards have a balance) and orders', async () => {
    const out = await runTool(db, T.getUserDetails, { user_id: 'noah_brown_6181' });
    expect(out.output).toStrictEqual(original.users.noah_brown_6181);
    expect(out.output.payment_methods).toEqual({
      paypal_5727330: { source: 'paypal', id: 'paypal_5727330' },
      credit_card_7815826: {
        source: 'credit_card',
        id: 'credit_card_7815826',
        brand: 'mastercard',
        last_four: '9212',
      },
    });
    expect(await failureOf(db, T.getUserDetails, { user_id: 'noah_brown' })).toEqual({
      code: 'retail.tool_error',
      message: 'User not found',
    });
  });

  it('list_all_product_types: the 50 names and ids as json.dumps(sort_keys=True) prints them', async () => {
    const out = await runTool(db, T.listAllProductTypes, {});
    const text = String(out.output.result);
    expect(
      text.startsWith('{"Action Camera": "3377618313", "Air Purifier": "3821016478", "Backpack": '),
    ).toBe(true);
    const parsed = JSON.parse(text) as Record<string, string>;
    expect(Object.keys(parsed)).toHaveLength(50);
    expect(parsed['T-Shirt']).toBe('9523456873');
  });

  it('calculate and transfer_to_human_agents answer as strings', async () => {
    expect((await runTool(db, T.calculate, { expression: '3131.1 + 4777.75 + 367.38' })).output).toEqual({
      result: '8276.23',
    });
    expect(await failureOf(db, T.calculate, { expression: 'import os' })).toEqual({
      code: 'retail.tool_error',
      message: 'Invalid characters in expression',
    });
    expect((await runTool(db, T.transferToHumanAgents, { summary: 'wants a human' })).output).toEqual({
      result: 'Transfer successful',
    });
  });

  it('refuses arguments that break its own boundary check before reading anything', async () => {
    expect(await failureOf(db, T.getOrderDetails, { order_id: 7 })).toEqual({
      code: 'retail.invalid_arguments',
      message: `invalid arguments for ${T.getOrderDetails}`,
    });
  });
});
