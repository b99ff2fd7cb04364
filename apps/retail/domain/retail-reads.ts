import type { RetailDb } from '../db/retail-db.js';
import type { RetailProduct, RetailUser, RetailVariant } from '../db/retail-types.js';
import { pyJsonDumpsSortedStringMap } from './py-json.js';
import { toolError } from './retail-errors.js';
import { getItem, getOrder, getProduct, getUser } from './retail-lookup.js';
import { orderView } from './retail-views.js';

/**
 * The benchmark's read tools over the database, each returning what the Python tool returns (a
 * string, or the model's dump) or throwing its exact `ValueError` as a `retail.tool_error`.
 */

/**
 * `find_user_id_by_name_zip`: the first user (in `db.json` order) whose first and last names equal
 * the given ones ignoring case and whose zip equals `zip` exactly.
 *
 * @throws `User not found`.
 */
export function findUserIdByNameZip(db: RetailDb, firstName: string, lastName: string, zip: string): string {
  const first = firstName.toLowerCase();
  const last = lastName.toLowerCase();
  const found = db
    .usersWithZip(zip)
    .find((u) => u.first_name.toLowerCase() === first && u.last_name.toLowerCase() === last);
  if (found === undefined) throw toolError('User not found');
  return found.user_id;
}

/** `find_user_id_by_email`: the first user whose email equals `email` ignoring case. @throws `User not found`. */
export function findUserIdByEmail(db: RetailDb, email: string): string {
  const found = db.firstUserWithFoldedEmail(email.toLowerCase());
  if (found === undefined) throw toolError('User not found');
  return found;
}

/** `get_order_details`: the order, every field (unset ones `null`). @throws `Order not found`. */
export function getOrderDetails(db: RetailDb, orderId: string): Record<string, unknown> {
  return orderView(getOrder(db, orderId));
}

/** `get_product_details`. @throws `Product not found`. */
export function getProductDetails(db: RetailDb, productId: string): RetailProduct {
  return getProduct(db, productId);
}

/** `get_item_details`: the variant in the first product holding the item id. @throws `Item not found`. */
export function getItemDetails(db: RetailDb, itemId: string): RetailVariant {
  return getItem(db, itemId);
}

/** `get_user_details`. @throws `User not found`. */
export function getUserDetails(db: RetailDb, userId: string): RetailUser {
  return getUser(db, userId);
}

/**
 * `list_all_product_types`: `json.dumps({name: product_id}, sort_keys=True)` as Python prints it
 * (a later product with the same name would replace the earlier id). Never throws.
 */
export function listAllProductTypes(db: RetailDb): string {
  const byName = new Map<string, string>();
  for (const p of db.productNames()) byName.set(p.name, p.product_id);
  return pyJsonDumpsSortedStringMap(byName);
}

/** `transfer_to_human_agents`: always `Transfer successful` (the summary is not stored). */
export function transferToHumanAgents(_summary: string): string {
  return 'Transfer successful';
}
