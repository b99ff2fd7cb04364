import type { ToolExecution } from '../../../src/index.js';
import { contentDigest, logisticsFactRef } from '../business/fact-refs.js';
import { RefundErrorCode, RefundExampleError } from '../business/refund-errors.js';
import type { RefundStore } from '../business/refund-store.js';
import {
  ORDER_ID_ONLY_PARAMETERS,
  OrderIdOnlyArgsSchema,
  REFUND_ARTIFACT_SCHEMA_VERSION,
  artifactIdFor,
  orderNotFound,
  parseArgs,
} from './tool-support.js';
import type { RefundTool } from './tool-support.js';

/** Artifact type of an observed shipment state. */
export const LOGISTICS_ARTIFACT_TYPE = 'logistics';

/**
 * `logistics.read` v1 (read): the shipment state of one order.
 *
 * Output `{ orderId, status, updatedAt, version, factRef }` plus an observed `logistics` artifact
 * (externalId = order id). Fails with `refund.invalid_arguments`, `refund.order_not_found` (no such
 * order) or `refund.logistics_not_found` (the order has no shipment record).
 */
export function createLogisticsReadTool(store: RefundStore): RefundTool {
  return {
    definition: {
      name: 'logistics.read',
      version: 'v1',
      description: 'Read the shipment state of one order (not_shipped, in_transit, delivered, returned).',
      effect: 'read',
      parameters: ORDER_ID_ONLY_PARAMETERS,
    },
    executor: {
      async execute(ctx, call): Promise<ToolExecution> {
        const { orderId } = parseArgs(OrderIdOnlyArgsSchema, call);
        const logistics = await store.readLogistics(orderId, ctx);
        if (logistics === undefined) {
          const order = await store.readOrder(orderId, ctx);
          if (order === undefined) {
            throw orderNotFound(orderId);
          }
          throw new RefundExampleError(
            RefundErrorCode.logisticsNotFound,
            `order ${orderId} has no shipment record`,
            {
              orderId,
            },
          );
        }
        const factRef = logisticsFactRef(logistics);
        return {
          output: { ...logistics, factRef },
          artifacts: [
            {
              id: artifactIdFor(call, LOGISTICS_ARTIFACT_TYPE),
              type: LOGISTICS_ARTIFACT_TYPE,
              schemaVersion: REFUND_ARTIFACT_SCHEMA_VERSION,
              provenance: 'observed',
              externalId: logistics.orderId,
              data: { ...logistics, factRef, digest: contentDigest(logistics) },
            },
          ],
        };
      },
    },
  };
}
