import { z } from 'zod';
import type { ToolCall } from '../../../src/index.js';
import { RetailError, RetailErrorCode } from '../domain/retail-errors.js';

/**
 * Zod twins of the retail definitions' parameter schemas, checked at the executor's own boundary (the
 * registry has already checked the JSON schema; this guards executors called directly, as the gold
 * applier does, and types the arguments).
 */
const str = z.string();
const ids = z.array(z.string());
const address = { address1: str, address2: str, city: str, state: str, country: str, zip: str };

export const RetailArgs = {
  calculate: z.strictObject({ expression: str }),
  findUserIdByNameZip: z.strictObject({ first_name: str, last_name: str, zip: str }),
  findUserIdByEmail: z.strictObject({ email: str }),
  orderId: z.strictObject({ order_id: str }),
  productId: z.strictObject({ product_id: str }),
  itemId: z.strictObject({ item_id: str }),
  userId: z.strictObject({ user_id: str }),
  none: z.strictObject({}),
  transfer: z.strictObject({ summary: str }),
  cancel: z.strictObject({ order_id: str, reason: str }),
  itemSwap: z.strictObject({ order_id: str, item_ids: ids, new_item_ids: ids, payment_method_id: str }),
  orderAddress: z.strictObject({ order_id: str, ...address }),
  orderPayment: z.strictObject({ order_id: str, payment_method_id: str }),
  userAddress: z.strictObject({ user_id: str, ...address }),
  returnItems: z.strictObject({ order_id: str, item_ids: ids, payment_method_id: str }),
};

/**
 * Parse a call's arguments.
 *
 * @throws RetailError `retail.invalid_arguments` with the issues (nothing run).
 */
export function parseRetailArgs<T>(schema: z.ZodType<T>, call: ToolCall): T {
  const parsed = schema.safeParse(call.args);
  if (!parsed.success) {
    throw new RetailError(RetailErrorCode.invalidArguments, `invalid arguments for ${call.tool}`, {
      tool: call.tool,
      issues: parsed.error.issues.slice(0, 10).map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  return parsed.data;
}

/** The six address fields of a parsed address call. */
export function addressOf(
  args: z.infer<typeof RetailArgs.orderAddress> | z.infer<typeof RetailArgs.userAddress>,
) {
  return {
    address1: args.address1,
    address2: args.address2,
    city: args.city,
    country: args.country,
    state: args.state,
    zip: args.zip,
  };
}
