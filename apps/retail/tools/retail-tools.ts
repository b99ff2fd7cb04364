import type { ToolDefinition, ToolExecutor } from '../../../src/index.js';
import type { RetailDb } from '../db/retail-db.js';
import { exchangeDeliveredOrderItems, returnDeliveredOrderItems } from '../domain/delivered-order-writes.js';
import { modifyPendingOrderItems } from '../domain/modify-order-items.js';
import {
  cancelPendingOrder,
  modifyPendingOrderAddress,
  modifyPendingOrderPayment,
} from '../domain/pending-order-writes.js';
import { pyCalculate } from '../domain/py-calculate.js';
import * as reads from '../domain/retail-reads.js';
import { orderView } from '../domain/retail-views.js';
import { modifyUserAddress } from '../domain/user-writes.js';
import { retailToolDefinitions } from '../workflow/retail-definitions.js';
import { RETAIL_TOOLS as T } from '../workflow/retail-tool-names.js';
import { RetailArgs as A, addressOf } from './retail-args.js';
import { readExecutor, writeExecutor } from './retail-executor-kinds.js';

/** A retail tool: its definition (from the workflow side) and its executor bound to one database. */
export interface RetailTool {
  readonly definition: ToolDefinition;
  readonly executor: ToolExecutor;
}

/** The executors of the sixteen retail tools over `db`, by harness tool name. */
export function createRetailExecutors(db: RetailDb): Record<string, ToolExecutor> {
  return {
    [T.calculate]: readExecutor(db, A.calculate, (_db, a) => pyCalculate(a.expression)),
    [T.findUserIdByNameZip]: readExecutor(db, A.findUserIdByNameZip, (d, a) =>
      reads.findUserIdByNameZip(d, a.first_name, a.last_name, a.zip),
    ),
    [T.findUserIdByEmail]: readExecutor(db, A.findUserIdByEmail, (d, a) =>
      reads.findUserIdByEmail(d, a.email),
    ),
    [T.getOrderDetails]: readExecutor(db, A.orderId, (d, a) => reads.getOrderDetails(d, a.order_id)),
    [T.getProductDetails]: readExecutor(db, A.productId, (d, a) => reads.getProductDetails(d, a.product_id)),
    [T.getItemDetails]: readExecutor(db, A.itemId, (d, a) => reads.getItemDetails(d, a.item_id)),
    [T.getUserDetails]: readExecutor(db, A.userId, (d, a) => reads.getUserDetails(d, a.user_id)),
    [T.listAllProductTypes]: readExecutor(db, A.none, (d) => reads.listAllProductTypes(d)),
    [T.transferToHumanAgents]: readExecutor(db, A.transfer, (_db, a) =>
      reads.transferToHumanAgents(a.summary),
    ),
    [T.cancelPendingOrder]: writeExecutor(db, T.cancelPendingOrder, A.cancel, (d, a) =>
      orderView(cancelPendingOrder(d, a.order_id, a.reason)),
    ),
    [T.exchangeDeliveredOrderItems]: writeExecutor(db, T.exchangeDeliveredOrderItems, A.itemSwap, (d, a) =>
      orderView(
        exchangeDeliveredOrderItems(d, {
          orderId: a.order_id,
          itemIds: a.item_ids,
          newItemIds: a.new_item_ids,
          paymentMethodId: a.payment_method_id,
        }),
      ),
    ),
    [T.modifyPendingOrderAddress]: writeExecutor(db, T.modifyPendingOrderAddress, A.orderAddress, (d, a) =>
      orderView(modifyPendingOrderAddress(d, a.order_id, addressOf(a))),
    ),
    [T.modifyPendingOrderItems]: writeExecutor(db, T.modifyPendingOrderItems, A.itemSwap, (d, a) =>
      orderView(
        modifyPendingOrderItems(d, {
          orderId: a.order_id,
          itemIds: a.item_ids,
          newItemIds: a.new_item_ids,
          paymentMethodId: a.payment_method_id,
        }),
      ),
    ),
    [T.modifyPendingOrderPayment]: writeExecutor(db, T.modifyPendingOrderPayment, A.orderPayment, (d, a) =>
      orderView(modifyPendingOrderPayment(d, a.order_id, a.payment_method_id)),
    ),
    [T.modifyUserAddress]: writeExecutor(db, T.modifyUserAddress, A.userAddress, (d, a) =>
      modifyUserAddress(d, a.user_id, addressOf(a)),
    ),
    [T.returnDeliveredOrderItems]: writeExecutor(db, T.returnDeliveredOrderItems, A.returnItems, (d, a) =>
      orderView(returnDeliveredOrderItems(d, a.order_id, a.item_ids, a.payment_method_id)),
    ),
  };
}

/**
 * The sixteen retail tools bound to `db`, sorted by name: each definition from
 * {@link retailToolDefinitions} with its executor.
 *
 * @throws Error when a definition has no executor (a programming error of this module).
 */
export function createRetailTools(db: RetailDb): RetailTool[] {
  const executors = createRetailExecutors(db);
  return retailToolDefinitions().map((definition) => {
    const executor = executors[definition.name];
    if (executor === undefined) throw new Error(`no executor for ${definition.name}`);
    return { definition, executor };
  });
}

/** Anything tools can be registered with (the harness `ToolRegistry`). */
export interface RetailToolRegistrar {
  register(definition: ToolDefinition, executor: ToolExecutor): unknown;
}

/**
 * Register the retail tools bound to `db` with `registry`.
 *
 * @returns the registered tools.
 * @throws whatever `registry.register` throws (e.g. `registry.conflict`); earlier tools stay registered.
 */
export function registerRetailTools(registry: RetailToolRegistrar, db: RetailDb): RetailTool[] {
  const tools = createRetailTools(db);
  for (const tool of tools) registry.register(tool.definition, tool.executor);
  return tools;
}
