import type { ActionDescriber, DescribedAction } from '../../../src/workflows/index.js';
import { RETAIL_TOOLS as T } from './retail-tool-names.js';

/**
 * What the customer confirms for each retail write (policy.md: "list the action details and obtain
 * explicit user confirmation"), in one sentence naming every argument the write acts on, e.g.
 * `Cancel order #W123 (reason: no longer needed)`. Pure, deterministic, sandbox-safe.
 *
 * Failure semantics: never throws. A read, an unknown tool or arguments of an unexpected shape give
 * undefined (the harness's default text, `tool@version {arguments}`); a missing string argument shows
 * as `?`.
 */

type Args = Readonly<Record<string, unknown>>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '?');

const list = (value: unknown): string =>
  Array.isArray(value) ? `[${value.map((v) => text(v)).join(', ')}]` : '[?]';

/** `address1, address2, city, state zip, country` (an empty second line left out). */
function address(args: Args): string {
  const street = [args.address1, args.address2].map(text).filter((line) => line !== '');
  return `${[...street, text(args.city)].join(', ')}, ${text(args.state)} ${text(args.zip)}, ${text(args.country)}`;
}

/** The sentence of each retail write. */
const PHRASES: Readonly<Record<string, (args: Args) => string>> = {
  [T.cancelPendingOrder]: (a) => `Cancel order ${text(a.order_id)} (reason: ${text(a.reason)})`,
  [T.modifyPendingOrderAddress]: (a) =>
    `Change the shipping address of order ${text(a.order_id)} to ${address(a)}`,
  [T.modifyPendingOrderPayment]: (a) =>
    `Pay order ${text(a.order_id)} with ${text(a.payment_method_id)} instead of its current payment method`,
  [T.modifyPendingOrderItems]: (a) =>
    `Modify items ${list(a.item_ids)} of order ${text(a.order_id)} into ${list(a.new_item_ids)}, ` +
    `the price difference paid or refunded with ${text(a.payment_method_id)} ` +
    `(the order's items cannot be modified again, nor the order cancelled)`,
  [T.returnDeliveredOrderItems]: (a) =>
    `Return items ${list(a.item_ids)} of order ${text(a.order_id)}, refunded to ${text(a.payment_method_id)}`,
  [T.exchangeDeliveredOrderItems]: (a) =>
    `Exchange items ${list(a.item_ids)} of order ${text(a.order_id)} for ${list(a.new_item_ids)}, ` +
    `the price difference paid or refunded with ${text(a.payment_method_id)}`,
  [T.modifyUserAddress]: (a) => `Change the default address of user ${text(a.user_id)} to ${address(a)}`,
};

/** The retail {@link ActionDescriber}. */
export const describeRetailAction: ActionDescriber = (action: DescribedAction): string | undefined => {
  const phrase = Object.hasOwn(PHRASES, action.tool) ? PHRASES[action.tool] : undefined;
  if (phrase === undefined) return undefined;
  const args: unknown = action.args;
  if (typeof args !== 'object' || args === null) return undefined;
  return phrase(action.args);
};
