/**
 * The reason codes of `retail.policy@v1` (custom codes: lowercase dotted, outside the reserved
 * `policy.` namespace, so `isValidReasonCode` accepts them). They are written to durable audit records:
 * never renamed or reused with another meaning, only added. Pure data, sandbox-safe.
 */
export const RetailReasonCodes = {
  /** A read the policy allows (after authentication, or one of the reads allowed before it). */
  readAllowed: 'retail.read_allowed',
  /** A write shown to the model at presentation; dispatch decides on its arguments. */
  writePresented: 'retail.write_presented',
  /** A write whose checks held: it waits for the customer's explicit yes to its details. */
  customerConfirmation: 'retail.customer_confirmation',
  /** No customer authenticated yet (`user.authenticated`), and the tool needs one. */
  notAuthenticated: 'retail.not_authenticated',
  /**
   * The call acts for a user other than the authenticated one, on another user's order, or reads an
   * order the customer's profile does not list (another user's, or none at all).
   */
  otherUser: 'retail.other_user',
  /**
   * An order read before the customer's profile (`get_user_details`) told which orders are theirs:
   * the run cannot tell the customer's orders from another user's yet.
   */
  profileNotRead: 'retail.profile_not_read',
  /** The order named is not the order last read with `get_order_details` (or its owner is unknown). */
  orderNotVerified: 'retail.order_not_verified',
  /** The order's status does not allow this action (cancel/modify: `pending`; return/exchange: `delivered`). */
  orderStatus: 'retail.order_status',
  /** A cancellation reason other than `no longer needed` or `ordered by mistake`. */
  cancelReason: 'retail.cancel_reason',
  /** A payment change to the order's current (original) payment method. */
  paymentMethodUnchanged: 'retail.payment_method_unchanged',
  /** A return refunded to a method that is neither the original payment method nor a gift card. */
  refundMethod: 'retail.refund_method',
  /** An exchange or item modification whose old and new item lists differ in length. */
  itemsUnpaired: 'retail.items_unpaired',
  /** An exchange or item modification of an item into the very same item (no option changes). */
  itemUnchanged: 'retail.item_unchanged',
  /** A modification the run already made on this order (policy.md: once per order and tool). */
  alreadyModified: 'retail.already_modified',
  /** A tool (name, version or effect) outside the retail tool table: refused, fail closed. */
  unknownTool: 'retail.unknown_tool',
} as const;

export type RetailReasonCode = (typeof RetailReasonCodes)[keyof typeof RetailReasonCodes];
