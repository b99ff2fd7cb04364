import type { RetailDb } from '../db/retail-db.js';
import type { RetailOrder } from '../db/retail-types.js';
import { pyRound2 } from './py-float.js';
import { compareCodePoints } from './py-json.js';
import { toolError } from './retail-errors.js';
import { countOf, firstPayment, getOrder, getPaymentMethod, getUser, getVariant } from './retail-lookup.js';

/**
 * The benchmark's writes on a delivered order: request an exchange or a return. Neither moves money
 * or touches a balance; each records the request on the order and changes its status, so a delivered
 * order takes one of them, once. Each must run inside the write executor's transaction; a rule's
 * failure throws the benchmark's exact message as a `retail.tool_error` with nothing written.
 */

/** Arguments of {@link exchangeDeliveredOrderItems}. */
export interface ExchangeArgs {
  readonly orderId: string;
  readonly itemIds: readonly string[];
  readonly newItemIds: readonly string[];
  readonly paymentMethodId: string;
}

/**
 * `exchange_delivered_order_items`: status `exchange requested`, `exchange_items` and
 * `exchange_new_items` sorted, the payment method, and `exchange_price_difference` =
 * `round(sum(new price - old price), 2)` (old price: the first order line with that item id).
 * A new item equal to the old one is allowed here.
 *
 * @throws `Order not found`, `Non-delivered order cannot be exchanged`, `Number of <item_id> not
 *   found.`, `The number of items to be exchanged should match.`, `Item <item_id> not found`,
 *   `Product not found`, `Variant not found`, `New item <id> not found or available`, `User not
 *   found`, `Payment method not found`, `Insufficient gift card balance to pay for the price
 *   difference` (checked in this order).
 */
export function exchangeDeliveredOrderItems(db: RetailDb, args: ExchangeArgs): RetailOrder {
  const order = getOrder(db, args.orderId);
  if (order.status !== 'delivered') throw toolError('Non-delivered order cannot be exchanged');
  const all = order.items.map((i) => i.item_id);
  for (const id of args.itemIds) {
    if (countOf(args.itemIds, id) > countOf(all, id)) throw toolError(`Number of ${id} not found.`);
  }
  if (args.itemIds.length !== args.newItemIds.length) {
    throw toolError('The number of items to be exchanged should match.');
  }
  let diff = 0;
  for (const [i, itemId] of args.itemIds.entries()) {
    const newItemId = args.newItemIds[i] ?? '';
    const item = order.items.find((it) => it.item_id === itemId);
    if (item === undefined) throw toolError(`Item ${itemId} not found`);
    const variant = getVariant(db, item.product_id, newItemId);
    if (!variant.available) throw toolError(`New item ${newItemId} not found or available`);
    diff += variant.price - item.price;
  }
  diff = pyRound2(diff);
  const method = getPaymentMethod(db, order.user_id, args.paymentMethodId);
  if (method.source === 'gift_card' && method.balance < diff) {
    throw toolError('Insufficient gift card balance to pay for the price difference');
  }
  order.status = 'exchange requested';
  order.exchange_items = [...args.itemIds].sort(compareCodePoints);
  order.exchange_new_items = [...args.newItemIds].sort(compareCodePoints);
  order.exchange_payment_method_id = args.paymentMethodId;
  order.exchange_price_difference = diff;
  db.saveOrder(order);
  return order;
}

/**
 * `return_delivered_order_items`: status `return requested`, `return_items` sorted and the method the
 * refund goes to, which must be the order's original payment method (its first payment's) or any
 * gift card of the user.
 *
 * @throws `Order not found`, `Non-delivered order cannot be returned`, `User not found`, `Payment
 *   method not found`, `Payment method should be the original payment method`, `Some item not found`
 *   (checked in this order).
 */
export function returnDeliveredOrderItems(
  db: RetailDb,
  orderId: string,
  itemIds: readonly string[],
  paymentMethodId: string,
): RetailOrder {
  const order = getOrder(db, orderId);
  if (order.status !== 'delivered') throw toolError('Non-delivered order cannot be returned');
  const user = getUser(db, order.user_id);
  const method = getPaymentMethod(db, user.user_id, paymentMethodId);
  if (method.source !== 'gift_card' && paymentMethodId !== firstPayment(order).payment_method_id) {
    throw toolError('Payment method should be the original payment method');
  }
  const all = order.items.map((i) => i.item_id);
  for (const id of itemIds) {
    if (countOf(itemIds, id) > countOf(all, id)) throw toolError('Some item not found');
  }
  order.status = 'return requested';
  order.return_items = [...itemIds].sort(compareCodePoints);
  order.return_payment_method_id = paymentMethodId;
  db.saveOrder(order);
  return order;
}
