import type { ToolDefinition } from '../../../src/contract/index.js';
import { RETAIL_TOOLS, RETAIL_TOOL_VERSION } from './retail-tool-names.js';
import {
  ADDRESS_PROPERTIES,
  ORDER_ID,
  PAYMENT_METHOD_ID,
  USER_ID,
  closedParameters,
  field,
  itemIdList,
} from './retail-parameters.js';

/**
 * A write definition. Every retail write dedupes by the harness's idempotency key (the key is
 * recorded in the same SQLite transaction as the effect), so each declares `idempotentByKey`.
 */
function write(
  name: string,
  description: string,
  properties: Record<string, Record<string, unknown>>,
): ToolDefinition {
  return {
    name,
    version: RETAIL_TOOL_VERSION,
    description,
    effect: 'write',
    idempotentByKey: true,
    parameters: closedParameters(properties),
  };
}

const CONFIRM =
  'The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.';

/** The seven retail write tools (the benchmark's WRITE tools), with its descriptions. Pure data, sandbox-safe. */
export function retailWriteDefinitions(): ToolDefinition[] {
  return [
    write(
      RETAIL_TOOLS.cancelPendingOrder,
      "Cancel a pending order. If the order is already processed or delivered, it cannot be cancelled. The agent needs to explain the cancellation detail and ask for explicit user confirmation (yes/no) to proceed. If the user confirms, the order status will be changed to 'cancelled' and the payment will be refunded. The refund will be added to the user's gift card balance immediately if the payment was made using a gift card, otherwise the refund would take 5-7 business days to process. The function returns the order details after the cancellation.",
      {
        order_id: ORDER_ID,
        reason: field(
          "The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'.",
        ),
      },
    ),
    write(
      RETAIL_TOOLS.exchangeDeliveredOrderItems,
      'Exchange items in a delivered order to new items of the same product type. For a delivered order, return or exchange can be only done once by the agent. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.',
      {
        order_id: ORDER_ID,
        item_ids: itemIdList(
          "The item ids to be exchanged, each such as '1008292230'. There could be duplicate items in the list.",
        ),
        new_item_ids: itemIdList(
          "The item ids to be exchanged for, each such as '1008292230'. There could be duplicate items in the list. Each new item id should match the item id in the same position and be of the same product.",
        ),
        payment_method_id: PAYMENT_METHOD_ID,
      },
    ),
    write(
      RETAIL_TOOLS.modifyPendingOrderAddress,
      `Modify the shipping address of a pending order. ${CONFIRM}`,
      { order_id: ORDER_ID, ...ADDRESS_PROPERTIES },
    ),
    write(
      RETAIL_TOOLS.modifyPendingOrderItems,
      'Modify items in a pending order to new items of the same product type. For a pending order, this function can only be called once. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.',
      {
        order_id: ORDER_ID,
        item_ids: itemIdList(
          "The item ids to be modified, each such as '1008292230'. There could be duplicate items in the list.",
        ),
        new_item_ids: itemIdList(
          "The item ids to be modified for, each such as '1008292230'. There could be duplicate items in the list. Each new item id should match the item id in the same position and be of the same product.",
        ),
        payment_method_id: PAYMENT_METHOD_ID,
      },
    ),
    write(
      RETAIL_TOOLS.modifyPendingOrderPayment,
      `Modify the payment method of a pending order. ${CONFIRM}`,
      { order_id: ORDER_ID, payment_method_id: PAYMENT_METHOD_ID },
    ),
    write(RETAIL_TOOLS.modifyUserAddress, `Modify the default address of a user. ${CONFIRM}`, {
      user_id: USER_ID,
      ...ADDRESS_PROPERTIES,
    }),
    write(
      RETAIL_TOOLS.returnDeliveredOrderItems,
      "Return some items of a delivered order. The order status will be changed to 'return requested'. The agent needs to explain the return detail and ask for explicit user confirmation (yes/no) to proceed. The user will receive follow-up email for how and where to return the item.",
      {
        order_id: ORDER_ID,
        item_ids: itemIdList(
          "The item ids to be returned, each such as '1008292230'. There could be duplicate items in the list.",
        ),
        payment_method_id: field(
          "The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.",
        ),
      },
    ),
  ];
}
