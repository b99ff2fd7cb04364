import type { RetailDb } from '../db/retail-db.js';
import type { RetailAddress, RetailOrder, RetailPayment } from '../db/retail-types.js';
import { RETAIL_CANCEL_REASONS } from '../db/retail-types.js';
import { pyRound2 } from './py-float.js';
import { toolError } from './retail-errors.js';
import { getOrder, getPaymentMethod, getUser } from './retail-lookup.js';

/**
 * The benchmark's writes on a pending order's status, address and payment. Each must run inside one
 * transaction (the write executor's): it reads, checks every rule in the benchmark's order, then
 * writes. On a rule's failure it throws the benchmark's exact message as a `retail.tool_error`, and
 * the transaction rolls back whatever the call wrote (in the benchmark a later lookup failing after a
 * write, e.g. a payment method missing from its user, would leave the earlier writes; `db.json` has
 * no such data and no tool deletes payment methods).
 */

/**
 * `cancel_pending_order`: status `cancelled`, the reason recorded, one refund per entry of the
 * payment history (whatever its type), each gift card credited at once (`round(balance + amount, 2)`).
 *
 * @throws `Order not found`, `Non-pending order cannot be cancelled` (status other than exactly
 *   `pending`), `Invalid reason`, `User not found`, `Payment method not found`.
 */
export function cancelPendingOrder(db: RetailDb, orderId: string, reason: string): RetailOrder {
  const order = getOrder(db, orderId);
  if (order.status !== 'pending') throw toolError('Non-pending order cannot be cancelled');
  if (!(RETAIL_CANCEL_REASONS as readonly string[]).includes(reason)) throw toolError('Invalid reason');
  const refunds: RetailPayment[] = [];
  for (const payment of order.payment_history) {
    refunds.push({
      transaction_type: 'refund',
      amount: payment.amount,
      payment_method_id: payment.payment_method_id,
    });
    const user = getUser(db, order.user_id);
    const method = getPaymentMethod(db, user.user_id, payment.payment_method_id);
    if (method.source === 'gift_card') {
      db.setGiftCardBalance(user.user_id, method.id, pyRound2(method.balance + payment.amount));
    }
  }
  order.status = 'cancelled';
  order.cancel_reason = reason;
  order.payment_history.push(...refunds);
  db.saveOrder(order);
  return order;
}

/**
 * `modify_pending_order_address`: replace the shipping address of an order whose status contains
 * `pending` (so also `pending (item modified)`).
 *
 * @throws `Order not found`, `Non-pending order cannot be modified`.
 */
export function modifyPendingOrderAddress(
  db: RetailDb,
  orderId: string,
  address: RetailAddress,
): RetailOrder {
  const order = getOrder(db, orderId);
  if (!order.status.includes('pending')) throw toolError('Non-pending order cannot be modified');
  order.address = { ...address };
  db.saveOrder(order);
  return order;
}

/**
 * `modify_pending_order_payment`: move the order's single payment to another method of its user: a
 * payment of the same amount with the new method and a refund to the old one are appended; a gift
 * card paying is debited and a gift card refunded is credited (each `round(..., 2)`).
 *
 * @throws `Order not found`, `Non-pending order cannot be modified` (status without `pending`),
 *   `User not found`, `Payment method not found`, `There should be exactly one payment for a pending
 *   order`, `The new payment method should be different from the current one`, `Insufficient gift
 *   card balance to pay for the order`.
 */
export function modifyPendingOrderPayment(
  db: RetailDb,
  orderId: string,
  paymentMethodId: string,
): RetailOrder {
  const order = getOrder(db, orderId);
  if (!order.status.includes('pending')) throw toolError('Non-pending order cannot be modified');
  const method = getPaymentMethod(db, order.user_id, paymentMethodId);
  const first = order.payment_history[0];
  if (order.payment_history.length !== 1 || first === undefined || first.transaction_type !== 'payment') {
    throw toolError('There should be exactly one payment for a pending order');
  }
  if (first.payment_method_id === paymentMethodId) {
    throw toolError('The new payment method should be different from the current one');
  }
  const amount = first.amount;
  if (method.source === 'gift_card' && method.balance < amount) {
    throw toolError('Insufficient gift card balance to pay for the order');
  }
  order.payment_history.push(
    { transaction_type: 'payment', amount, payment_method_id: paymentMethodId },
    { transaction_type: 'refund', amount, payment_method_id: first.payment_method_id },
  );
  if (method.source === 'gift_card') {
    db.setGiftCardBalance(order.user_id, method.id, pyRound2(method.balance - amount));
  }
  const old = getPaymentMethod(db, order.user_id, first.payment_method_id);
  if (old.source === 'gift_card') {
    db.setGiftCardBalance(order.user_id, old.id, pyRound2(old.balance + amount));
  }
  db.saveOrder(order);
  return order;
}
