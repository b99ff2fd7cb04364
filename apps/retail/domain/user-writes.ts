import type { RetailDb } from '../db/retail-db.js';
import type { RetailAddress, RetailUser } from '../db/retail-types.js';
import { getUser } from './retail-lookup.js';

/**
 * `modify_user_address`: replace the user's default address (their orders keep theirs). Runs inside
 * the write executor's transaction.
 *
 * @throws `User not found` (a `retail.tool_error`); nothing written then.
 */
export function modifyUserAddress(db: RetailDb, userId: string, address: RetailAddress): RetailUser {
  getUser(db, userId);
  db.setUserAddress(userId, address);
  return getUser(db, userId);
}
