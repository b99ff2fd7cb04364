import type { RetailDb } from '../db/retail-db.js';
import type {
  RetailOrder,
  RetailPaymentMethod,
  RetailProduct,
  RetailUser,
  RetailVariant,
} from '../db/retail-types.js';
import { toolError } from './retail-errors.js';

/**
 * The benchmark's private lookups (`_get_order`, `_get_user`, ...): the entity, or its exact
 * `ValueError` as a `retail.tool_error`.
 */

/** `_get_order`. @throws `Order not found`. */
export function getOrder(db: RetailDb, orderId: string): RetailOrder {
  const order = db.order(orderId);
  if (order === undefined) throw toolError('Order not found');
  return order;
}

/** `_get_user`. @throws `User not found`. */
export function getUser(db: RetailDb, userId: string): RetailUser {
  const user = db.user(userId);
  if (user === undefined) throw toolError('User not found');
  return user;
}

/** `_get_product`. @throws `Product not found`. */
export function getProduct(db: RetailDb, productId: string): RetailProduct {
  const product = db.product(productId);
  if (product === undefined) throw toolError('Product not found');
  return product;
}

/** `_get_item`: the first product (in product order) holding the item id. @throws `Item not found`. */
export function getItem(db: RetailDb, itemId: string): RetailVariant {
  const variant = db.firstVariantWithItemId(itemId);
  if (variant === undefined) throw toolError('Item not found');
  return variant;
}

/** `_get_variant`. @throws `Product not found`, then `Variant not found`. */
export function getVariant(db: RetailDb, productId: string, variantId: string): RetailVariant {
  getProduct(db, productId);
  const variant = db.variant(productId, variantId);
  if (variant === undefined) throw toolError('Variant not found');
  return variant;
}

/** `_get_payment_method`. @throws `User not found`, then `Payment method not found`. */
export function getPaymentMethod(db: RetailDb, userId: string, paymentMethodId: string): RetailPaymentMethod {
  getUser(db, userId);
  const method = db.paymentMethod(userId, paymentMethodId);
  if (method === undefined) throw toolError('Payment method not found');
  return method;
}

/** `order.payment_history[0]`. @throws `list index out of range` (Python's IndexError) when empty. */
export function firstPayment(order: RetailOrder): RetailOrder['payment_history'][number] {
  const first = order.payment_history[0];
  if (first === undefined) throw toolError('list index out of range', 'IndexError');
  return first;
}

/** Python's `list.count`. */
export function countOf(list: readonly string[], value: string): number {
  let n = 0;
  for (const v of list) if (v === value) n++;
  return n;
}
