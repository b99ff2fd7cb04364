/**
 * The harness names of τ²-bench's retail tools: `retail.` + the benchmark's tool name, all `v1`.
 * Pure data, sandbox-safe.
 */
export const RETAIL_TOOLS = {
  calculate: 'retail.calculate',
  cancelPendingOrder: 'retail.cancel_pending_order',
  exchangeDeliveredOrderItems: 'retail.exchange_delivered_order_items',
  findUserIdByEmail: 'retail.find_user_id_by_email',
  findUserIdByNameZip: 'retail.find_user_id_by_name_zip',
  getItemDetails: 'retail.get_item_details',
  getOrderDetails: 'retail.get_order_details',
  getProductDetails: 'retail.get_product_details',
  getUserDetails: 'retail.get_user_details',
  listAllProductTypes: 'retail.list_all_product_types',
  modifyPendingOrderAddress: 'retail.modify_pending_order_address',
  modifyPendingOrderItems: 'retail.modify_pending_order_items',
  modifyPendingOrderPayment: 'retail.modify_pending_order_payment',
  modifyUserAddress: 'retail.modify_user_address',
  returnDeliveredOrderItems: 'retail.return_delivered_order_items',
  transferToHumanAgents: 'retail.transfer_to_human_agents',
} as const;
export type RetailToolName = (typeof RETAIL_TOOLS)[keyof typeof RETAIL_TOOLS];

/** Version of every retail tool. */
export const RETAIL_TOOL_VERSION = 'v1';

/** The harness name of a benchmark tool name (`get_order_details` -> `retail.get_order_details`). */
export function retailToolName(benchmarkName: string): string {
  return `retail.${benchmarkName}`;
}
