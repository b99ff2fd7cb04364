import { z } from 'zod';
import type { Artifact, ReconcileOutcome, ToolCall, ToolExecution } from '../../../src/index.js';
import type { RefundStore } from '../business/refund-store.js';
import type { Refund } from '../business/refund-types.js';
import {
  ORDER_ID_JSON_SCHEMA,
  ORDER_ID_PATTERN,
  REFUND_ARTIFACT_SCHEMA_VERSION,
  artifactIdFor,
  parseArgs,
} from './tool-support.js';
import type { RefundTool } from './tool-support.js';

/** Largest refund one call may ask for: 1,000,000.00 in the order's currency. */
export const MAX_REFUND_AMOUNT_CENTS = 100_000_000;

const ArgsSchema = z
  .object({
    orderId: z.string().min(1).max(64).regex(ORDER_ID_PATTERN),
    amountCents: z.number().int().min(1).max(MAX_REFUND_AMOUNT_CENTS),
    reason: z.string().min(1).max(500),
  })
  .strict();

/** Artifact type of an observed refund. */
export const REFUND_ARTIFACT_TYPE = 'refund';

/** The execution reported for a refund, identical whether it was created, replayed or reconciled. */
export function refundExecution(call: ToolCall, refund: Refund): ToolExecution {
  const artifact: Artifact = {
    id: artifactIdFor(call, REFUND_ARTIFACT_TYPE),
    type: REFUND_ARTIFACT_TYPE,
    schemaVersion: REFUND_ARTIFACT_SCHEMA_VERSION,
    provenance: 'observed',
    externalId: refund.id,
    data: { ...refund },
  };
  return {
    output: {
      refundId: refund.id,
      orderId: refund.orderId,
      amountCents: refund.amountCents,
      currency: refund.currency,
      reason: refund.reason,
      status: refund.status,
      createdAt: refund.createdAt,
    },
    artifacts: [artifact],
    externalId: refund.id,
  };
}

/**
 * `refund.create` v1 (write): refund an order, idempotently under `call.idempotencyKey`.
 *
 * execute: creates the refund, or returns the refund that already carries the call's idempotency key
 * (never a second row). Heartbeats through `ctx` during injected latency. Output
 * `{ refundId, orderId, amountCents, currency, reason, status, createdAt }`, externalId = refund id,
 * and an observed `refund` artifact. Fails with `refund.invalid_arguments`, `refund.order_not_found`,
 * `refund.order_not_refundable`, `refund.amount_exceeds_order`, `refund.idempotency_key_reused`
 * (nothing written), or with the cancellation reason / `refund.operation_aborted` when cancelled
 * during latency (with phase `after_commit` the refund may exist: reconcile).
 *
 * reconcile: read-only lookup by idempotency key: found and matching the call's order and amount ->
 * `succeeded` with the same execution; not found -> `not_applied`; found but for another order or
 * amount -> `unknown` (an operator must look). Store errors propagate.
 *
 * Declared `idempotentByKey`: a lost attempt the reconciler settles `not_applied` is run again under
 * the same key without asking anyone (the UNIQUE key makes a repeat return the first refund).
 */
export function createRefundCreateTool(store: RefundStore): RefundTool {
  return {
    definition: {
      name: 'refund.create',
      version: 'v1',
      description:
        'Refund an order to the original payment method. Only after eligibility is decided and the user confirmed. Amount in cents.',
      effect: 'write',
      // A repeat under the same key returns the refund that key made (UNIQUE key): safe to run again.
      idempotentByKey: true,
      parameters: {
        type: 'object',
        properties: {
          orderId: ORDER_ID_JSON_SCHEMA,
          amountCents: {
            type: 'integer',
            description: 'Amount to refund, in cents of the order currency.',
            minimum: 1,
            maximum: MAX_REFUND_AMOUNT_CENTS,
          },
          reason: { type: 'string', description: 'Why the refund is made.', minLength: 1, maxLength: 500 },
        },
        required: ['orderId', 'amountCents', 'reason'],
        additionalProperties: false,
      },
    },
    executor: {
      async execute(ctx, call): Promise<ToolExecution> {
        const args = parseArgs(ArgsSchema, call);
        const { refund } = await store.createRefund({ ...args, idempotencyKey: call.idempotencyKey }, ctx);
        return refundExecution(call, refund);
      },
      async reconcile(ctx, call): Promise<ReconcileOutcome> {
        const refund = await store.findRefundByKey(call.idempotencyKey, ctx);
        if (refund === undefined) return { outcome: 'not_applied' };
        const args = ArgsSchema.safeParse(call.args);
        if (
          !args.success ||
          args.data.orderId !== refund.orderId ||
          args.data.amountCents !== refund.amountCents
        ) {
          return { outcome: 'unknown' };
        }
        return { outcome: 'succeeded', execution: refundExecution(call, refund) };
      },
    },
  };
}
