import type { Artifact, ToolCall, ToolExecution } from '../../../src/index.js';
import { contentDigest, orderFactRef } from '../business/fact-refs.js';
import type { RefundStore } from '../business/refund-store.js';
import type { Order } from '../business/refund-types.js';
import {
  ORDER_ID_ONLY_PARAMETERS,
  OrderIdOnlyArgsSchema,
  REFUND_ARTIFACT_SCHEMA_VERSION,
  artifactIdFor,
  orderNotFound,
  parseArgs,
} from './tool-support.js';
import type { RefundTool } from './tool-support.js';

/** Artifact type of an observed order. */
export const ORDER_ARTIFACT_TYPE = 'order';

/** The observed `order` artifact of one read: the order row, its fact ref and digest. */
export function orderArtifact(call: ToolCall, order: Order): Artifact {
  return {
    id: artifactIdFor(call, ORDER_ARTIFACT_TYPE),
    type: ORDER_ARTIFACT_TYPE,
    schemaVersion: REFUND_ARTIFACT_SCHEMA_VERSION,
    provenance: 'observed',
    externalId: order.id,
    data: { ...order, factRef: orderFactRef(order), digest: contentDigest(order) },
  };
}

/**
 * `order.read` v1 (read): one order from the business store.
 *
 * Output `{ orderId, customerId, status, amountCents, currency, paidAt, phone, version, factRef }`
 * plus an observed `order` artifact (externalId = order id).
 * Fails with `refund.invalid_arguments` or `refund.order_not_found`.
 */
export function createOrderReadTool(store: RefundStore): RefundTool {
  return {
    definition: {
      name: 'order.read',
      version: 'v1',
      description: 'Read one order: owner, status, amount, payment time. Cite it by the returned factRef.',
      effect: 'read',
      parameters: ORDER_ID_ONLY_PARAMETERS,
    },
    executor: {
      async execute(ctx, call): Promise<ToolExecution> {
        const { orderId } = parseArgs(OrderIdOnlyArgsSchema, call);
        const order = await store.readOrder(orderId, ctx);
        if (order === undefined) {
          throw orderNotFound(orderId);
        }
        return {
          output: {
            orderId: order.id,
            customerId: order.customerId,
            status: order.status,
            amountCents: order.amountCents,
            currency: order.currency,
            paidAt: order.paidAt,
            phone: order.phone,
            version: order.version,
            factRef: orderFactRef(order),
          },
          artifacts: [orderArtifact(call, order)],
        };
      },
    },
  };
}
