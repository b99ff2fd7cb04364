import type { PolicyFacts } from '../../../src/workflows/index.js';
import { listsOrder, modifiedFact, RETAIL_FACTS as F } from './retail-facts.js';
import { RetailReasonCodes as R, type RetailReasonCode } from './retail-reason-codes.js';
import { RETAIL_TOOLS as T } from './retail-tool-names.js';

/**
 * The rules of τ²-bench's retail policy (apps/retail/data/policy.md) as data: for each retail tool,
 * its effect, whether it may run before the customer is authenticated, and the checks its call must
 * pass at dispatch, in order (the first failing check's code is the refusal). Pure, sandbox-safe.
 *
 * Checked here, from the call's arguments and the verified facts of `retailFacts`:
 * - authentication before anything but product lookups, `calculate` and the transfer;
 * - one customer per conversation: `user_id` arguments and the order's owner are the authenticated user,
 *   and an order is read only when the customer's profile (`user.orders`, from `get_user_details`)
 *   lists it, so another customer's order is never shown (policy.md: "deny any requests for tasks
 *   related to any other user");
 * - an order is acted on only after it was read (`order.id`), and only in the statuses of its action;
 * - the cancel reason; a payment change to a different method; a return's refund to the original
 *   payment method or a gift card (a gift card told by its id, `gift_card_…`, as in `db.json`);
 *   exchange and item modification pair each item with a different new item.
 *
 * Left to the tools (they need data the facts do not hold, and refuse with the benchmark's errors):
 * the order, user, items, products and payment methods existing and belonging to the user; item counts
 * in the order; new items available and of the same product; a gift card's balance covering the
 * order or the price difference; a payment change needing exactly one payment on the order; whether
 * a `gift_card_…` id named for a refund really is a gift card of the user.
 */

/** One check of a call: the refusal's code, or undefined when it holds. */
export type RetailCheck = (
  args: Readonly<Record<string, unknown>>,
  facts: PolicyFacts,
) => RetailReasonCode | undefined;

/** What the policy knows of one retail tool. */
export interface RetailToolRule {
  readonly effect: 'read' | 'write';
  /** Allowed before `user.authenticated` (policy.md: only lookups that touch no customer's data). */
  readonly beforeAuthentication: boolean;
  /** Checks at dispatch after authentication, in order. */
  readonly checks: readonly RetailCheck[];
}

/** policy.md's cancellation reasons, the only ones accepted. */
export const CANCEL_REASONS: readonly string[] = ['no longer needed', 'ordered by mistake'];

/** The status an order must have for each action (policy.md: "can only be ... if its status is"). */
export const ORDER_ACTION_STATUSES = {
  cancel: ['pending'],
  modify: ['pending'],
  returnOrExchange: ['delivered'],
} as const satisfies Record<string, readonly string[]>;

/** The id prefix of gift cards in the retail data (`gift_card_0000000`). */
export const GIFT_CARD_ID_PREFIX = 'gift_card_';

/** The `user_id` argument is the authenticated customer. */
const sameUser: RetailCheck = (args, facts) =>
  typeof args.user_id === 'string' && args.user_id === facts[F.userId] ? undefined : R.otherUser;

/** The `order_id` argument is the order last read, and it is the customer's. */
const verifiedOrder: RetailCheck = (args, facts) => {
  if (typeof args.order_id !== 'string' || args.order_id !== facts[F.orderId]) return R.orderNotVerified;
  const owned = facts[F.orderOwnedByUser];
  if (owned === true) return undefined;
  return owned === false ? R.otherUser : R.orderNotVerified;
};

/**
 * The `order_id` read is one of the customer's own (listed in `user.orders`); before their profile
 * was read nothing tells, so the read waits for it.
 */
const customersOrder: RetailCheck = (args, facts) => {
  if (facts[F.userOrders] === undefined) return R.profileNotRead;
  return listsOrder(facts[F.userOrders], args.order_id) ? undefined : R.otherUser;
};

/** The order's verified status is one of `statuses`. */
function statusIn(statuses: readonly string[]): RetailCheck {
  return (_args, facts) => {
    const status = facts[F.orderStatus];
    return typeof status === 'string' && statuses.includes(status) ? undefined : R.orderStatus;
  };
}

/**
 * policy.md: "Exchange or modify order tools can only be called once per order": `action` has not
 * succeeded on this order in the run (the `modified.*` fact of retail-facts.ts).
 */
function notYet(action: string): RetailCheck {
  return (args, facts) =>
    typeof args.order_id === 'string' && facts[modifiedFact(args.order_id, action)] === true
      ? R.alreadyModified
      : undefined;
}

const cancelReason: RetailCheck = (args) =>
  typeof args.reason === 'string' && CANCEL_REASONS.includes(args.reason) ? undefined : R.cancelReason;

/** policy.md, modify payment: "a single payment method different from the original payment method". */
const paymentMethodChanges: RetailCheck = (args, facts) =>
  args.payment_method_id === facts[F.orderPaymentMethodId] ? R.paymentMethodUnchanged : undefined;

/** policy.md, return: "The refund must either go to the original payment method, or an existing gift card." */
const refundToOriginalOrGiftCard: RetailCheck = (args, facts) => {
  const method = args.payment_method_id;
  if (typeof method !== 'string') return R.refundMethod;
  return method === facts[F.orderPaymentMethodId] || method.startsWith(GIFT_CARD_ID_PREFIX)
    ? undefined
    : R.refundMethod;
};

/** policy.md: each item changes "to an available new item of the same product but of different product option". */
const itemsPairedAndChanged: RetailCheck = (args) => {
  const { item_ids: old, new_item_ids: next } = args;
  if (!Array.isArray(old) || !Array.isArray(next) || old.length !== next.length) return R.itemsUnpaired;
  return old.some((id, i) => id === next[i]) ? R.itemUnchanged : undefined;
};

const read = (beforeAuthentication: boolean, ...checks: RetailCheck[]): RetailToolRule => ({
  effect: 'read',
  beforeAuthentication,
  checks,
});
const write = (...checks: RetailCheck[]): RetailToolRule => ({
  effect: 'write',
  beforeAuthentication: false,
  checks,
});
const S = ORDER_ACTION_STATUSES;

/**
 * `retail.policy@v1`'s table: every retail tool (`v1`) and its rule; a tool not listed is refused
 * (`retail.unknown_tool`). Kept unchanged for the runs that pinned v1: it reads any order once the
 * customer is authenticated.
 */
export const RETAIL_TOOL_RULES_V1: Readonly<Record<string, RetailToolRule>> = {
  [T.findUserIdByEmail]: read(true),
  [T.findUserIdByNameZip]: read(true),
  [T.calculate]: read(true),
  [T.listAllProductTypes]: read(true),
  [T.getProductDetails]: read(true),
  [T.getItemDetails]: read(true),
  [T.transferToHumanAgents]: read(true),
  [T.getOrderDetails]: read(false),
  [T.getUserDetails]: read(false, sameUser),
  [T.modifyUserAddress]: write(sameUser),
  [T.cancelPendingOrder]: write(verifiedOrder, statusIn(S.cancel), cancelReason),
  [T.modifyPendingOrderAddress]: write(
    verifiedOrder,
    statusIn(S.modify),
    notYet('modify_pending_order_address'),
  ),
  [T.modifyPendingOrderPayment]: write(
    verifiedOrder,
    statusIn(S.modify),
    paymentMethodChanges,
    notYet('modify_pending_order_payment'),
  ),
  [T.modifyPendingOrderItems]: write(verifiedOrder, statusIn(S.modify), itemsPairedAndChanged),
  [T.returnDeliveredOrderItems]: write(
    verifiedOrder,
    statusIn(S.returnOrExchange),
    refundToOriginalOrGiftCard,
  ),
  [T.exchangeDeliveredOrderItems]: write(verifiedOrder, statusIn(S.returnOrExchange), itemsPairedAndChanged),
};

/**
 * `retail.policy@v2`'s table: v1's, and an order is read only when the customer's profile lists it
 * (`retail.profile_not_read` before the profile was read, `retail.other_user` for an order not listed).
 */
export const RETAIL_TOOL_RULES: Readonly<Record<string, RetailToolRule>> = {
  ...RETAIL_TOOL_RULES_V1,
  [T.getOrderDetails]: read(false, customersOrder),
};

/** The versions of `retail.policy`, each with its table. */
export type RetailPolicyVersion = 'v1' | 'v2';

/** The rule of `tool` under `retail.policy@<version>` (default v2), if it is a retail tool. */
export function retailToolRule(
  tool: string,
  version: RetailPolicyVersion = 'v2',
): RetailToolRule | undefined {
  const table = version === 'v1' ? RETAIL_TOOL_RULES_V1 : RETAIL_TOOL_RULES;
  return Object.hasOwn(table, tool) ? table[tool] : undefined;
}
