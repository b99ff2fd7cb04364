import type { FactDeriver, FactUpdate, PolicyFacts, SettledToolCall } from '../../../src/workflows/index.js';
import { RETAIL_TOOLS as T } from './retail-tool-names.js';

/**
 * The retail app's {@link FactDeriver} (issue 38): the verified facts of a run, derived only from the
 * results of succeeded retail tool calls. Pure, deterministic, sandbox-safe.
 *
 * Facts (lowercase dotted names, primitive values):
 * - `user.authenticated` (true), `user.id` (string): the first `find_user_id_by_*` that found a user.
 *   One customer per run: a later lookup finding anyone (the same user or another) changes nothing.
 * - `user.last_action` (`modify_user_address`): the customer's default address was changed.
 * - `user.orders` (string, `|#W1|#W2|`; not derived for the v1 profiles): the customer's order ids, from `get_user_details` of the
 *   authenticated user (another user's profile establishes nothing). What the policy lets the run
 *   read: an order not listed is another customer's (or nobody's). At most {@link MAX_LISTED_ORDERS}
 *   ids, each a non-empty string of at most 40 characters without `|`; a list breaking that
 *   establishes nothing (the reads stay refused: fail closed).
 * - `order.id`, `order.status`, `order.owned_by_user` (boolean: the order's `user_id` is `user.id`),
 *   `order.payment_method_id` (the method of the order's first payment, the "original" payment
 *   method of policy.md; absent for an order without payments): set by `get_order_details`. Reading
 *   another order first withdraws every `order.*` fact held (facts speak of one order at a time).
 * - `order.last_action` (the benchmark's tool name, e.g. `cancel_pending_order`): an order write
 *   succeeded on the order in `order.id`; `order.status` becomes the status it returned. A write on
 *   another order (the policy refuses it) withdraws the order facts.
 *
 * - `modified.<order key>.<benchmark tool name>` (true): that modification succeeded on that order in
 *   this run (the order key is its id lowercased without `#`, e.g. `modified.w4082615.modify_pending_order_address`).
 *   Not an `order.*` fact, so an order switch does not withdraw it: policy.md's "exchange or modify order
 *   tools can only be called once per order" holds across switches.
 *
 * Failure semantics: never throws. A call that did not succeed, a tool outside the table, an output
 * without the fields a fact needs (non-object, missing or non-string ids or status): no change.
 */

/** The retail order writes, by harness name, with the benchmark name each records as `order.last_action`. */
export const RETAIL_ORDER_WRITES: Readonly<Record<string, string>> = {
  [T.cancelPendingOrder]: 'cancel_pending_order',
  [T.modifyPendingOrderAddress]: 'modify_pending_order_address',
  [T.modifyPendingOrderItems]: 'modify_pending_order_items',
  [T.modifyPendingOrderPayment]: 'modify_pending_order_payment',
  [T.returnDeliveredOrderItems]: 'return_delivered_order_items',
  [T.exchangeDeliveredOrderItems]: 'exchange_delivered_order_items',
};

/** The fact names this deriver sets. */
export const RETAIL_FACTS = {
  userAuthenticated: 'user.authenticated',
  userId: 'user.id',
  userLastAction: 'user.last_action',
  userOrders: 'user.orders',
  orderId: 'order.id',
  orderStatus: 'order.status',
  orderOwnedByUser: 'order.owned_by_user',
  orderPaymentMethodId: 'order.payment_method_id',
  orderLastAction: 'order.last_action',
} as const;

const F = RETAIL_FACTS;
const NO_CHANGE: FactUpdate = {};

type Deriver = (output: Readonly<Record<string, unknown>>, facts: PolicyFacts) => FactUpdate;

/** What each tool's result establishes for the v1 profiles; tools not listed establish nothing. */
const DERIVERS_V1: Readonly<Record<string, Deriver>> = {
  [T.findUserIdByEmail]: fromUserLookup,
  [T.findUserIdByNameZip]: fromUserLookup,
  [T.getOrderDetails]: fromOrderRead,
  [T.modifyUserAddress]: fromUserAddressWrite,
  ...Object.fromEntries(
    Object.entries(RETAIL_ORDER_WRITES).map(([tool, action]): [string, Deriver] => [
      tool,
      (output, facts) => fromOrderWrite(action, output, facts),
    ]),
  ),
};

/** What each tool's result establishes for the v2 profiles: v1's, and the customer's order list. */
const DERIVERS: Readonly<Record<string, Deriver>> = { ...DERIVERS_V1, [T.getUserDetails]: fromProfileRead };

function deriverOf(table: Readonly<Record<string, Deriver>>): FactDeriver {
  return (call: SettledToolCall, facts: PolicyFacts): FactUpdate => {
    if (call.status !== 'succeeded' || !isRecord(call.output)) return NO_CHANGE;
    const derive = Object.hasOwn(table, call.tool) ? table[call.tool] : undefined;
    return derive === undefined ? NO_CHANGE : derive(call.output, facts);
  };
}

/** The retail fact deriver of the v2 profiles (`retail.policy@v2`). Never throws (see the file comment). */
export const retailFacts: FactDeriver = deriverOf(DERIVERS);
/**
 * The deriver of the v1 profiles (`retail.policy@v1`), kept for the runs that pinned them: no
 * `user.orders`. Never throws.
 */
export const retailFactsV1: FactDeriver = deriverOf(DERIVERS_V1);

/** `{ result: '<user_id>' }`: the customer, unless one is already authenticated. */
function fromUserLookup(output: Readonly<Record<string, unknown>>, facts: PolicyFacts): FactUpdate {
  const id = nonEmptyString(output.result);
  if (id === undefined || facts[F.userId] !== undefined) return NO_CHANGE;
  return { set: { [F.userAuthenticated]: true, [F.userId]: id } };
}

/** The most order ids `user.orders` holds (the retail data's users have at most 9). */
export const MAX_LISTED_ORDERS = 100;

/** The user object of the authenticated customer: their order ids. */
function fromProfileRead(output: Readonly<Record<string, unknown>>, facts: PolicyFacts): FactUpdate {
  if (facts[F.userId] === undefined || output.user_id !== facts[F.userId]) return NO_CHANGE;
  const listed = ordersFactValue(output.orders);
  return listed === undefined ? NO_CHANGE : { set: { [F.userOrders]: listed } };
}

/**
 * The `user.orders` value of an order list (`|#W1|#W2|`, `|` for none), or undefined when the list
 * is not an array of at most {@link MAX_LISTED_ORDERS} non-empty ids of at most 40 characters
 * without `|`. Pure; never throws.
 */
export function ordersFactValue(orders: unknown): string | undefined {
  if (!Array.isArray(orders) || orders.length > MAX_LISTED_ORDERS) return undefined;
  const ids: string[] = [];
  for (const id of orders as unknown[]) {
    if (typeof id !== 'string' || id === '' || id.length > 40 || id.includes('|')) return undefined;
    ids.push(id);
  }
  return `|${ids.join('|')}${ids.length === 0 ? '' : '|'}`;
}

/** Whether `user.orders` (see {@link ordersFactValue}) lists `orderId`. Pure; never throws. */
export function listsOrder(listed: unknown, orderId: unknown): boolean {
  return (
    typeof listed === 'string' &&
    typeof orderId === 'string' &&
    orderId !== '' &&
    !orderId.includes('|') &&
    listed.includes(`|${orderId}|`)
  );
}

/** The order object: its id, status, owner check and original payment method. */
function fromOrderRead(output: Readonly<Record<string, unknown>>, facts: PolicyFacts): FactUpdate {
  const orderId = nonEmptyString(output.order_id);
  const status = nonEmptyString(output.status);
  if (orderId === undefined || status === undefined) return NO_CHANGE;
  const set: Record<string, string | boolean> = {
    [F.orderId]: orderId,
    [F.orderStatus]: status,
    [F.orderOwnedByUser]: facts[F.userId] !== undefined && output.user_id === facts[F.userId],
  };
  const original = firstPaymentMethod(output.payment_history);
  if (original !== undefined) set[F.orderPaymentMethodId] = original;
  const switched = facts[F.orderId] !== undefined && facts[F.orderId] !== orderId;
  return switched ? { withdraw: orderFactNames(facts), set } : { set };
}

/** The updated order: its new status and the action, when it is the order the facts speak of. */
function fromOrderWrite(
  action: string,
  output: Readonly<Record<string, unknown>>,
  facts: PolicyFacts,
): FactUpdate {
  const orderId = nonEmptyString(output.order_id);
  const status = nonEmptyString(output.status);
  if (orderId === undefined || status === undefined) return NO_CHANGE;
  if (facts[F.orderId] !== orderId) {
    const held = orderFactNames(facts);
    return held.length === 0 ? NO_CHANGE : { withdraw: held };
  }
  return {
    set: { [F.orderStatus]: status, [F.orderLastAction]: action, [modifiedFact(orderId, action)]: true },
  };
}

/**
 * The fact that `action` succeeded on order `orderId` in this run: `modified.<key>.<action>`, the key
 * being the id lowercased with everything but letters, digits and `_` dropped (`#W4082615` →
 * `w4082615`); an id with nothing left is `order_`. Pure; never throws.
 */
export function modifiedFact(orderId: string, action: string): string {
  const key = orderId
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '')
    .slice(0, 40);
  return `modified.${/^[a-z]/.test(key) ? key : `order_${key}`}.${action}`;
}

/** The updated user: the customer's default address changed. */
function fromUserAddressWrite(output: Readonly<Record<string, unknown>>, facts: PolicyFacts): FactUpdate {
  const userId = nonEmptyString(output.user_id);
  if (userId === undefined || userId !== facts[F.userId]) return NO_CHANGE;
  return { set: { [F.userLastAction]: 'modify_user_address' } };
}

/** Every `order.*` fact held, sorted (a deterministic withdraw list). */
function orderFactNames(facts: PolicyFacts): string[] {
  return Object.keys(facts)
    .filter((name) => name.startsWith('order.'))
    .sort();
}

/** The payment method of the first entry of a payment history (the tools' "original" method). */
function firstPaymentMethod(history: unknown): string | undefined {
  if (!Array.isArray(history) || history.length === 0) return undefined;
  const first: unknown = history[0];
  return isRecord(first) ? nonEmptyString(first.payment_method_id) : undefined;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
