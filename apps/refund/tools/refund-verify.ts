import { z } from 'zod';
import type { ToolExecution } from '../../../src/index.js';
import type { RefundStore } from '../business/refund-store.js';
import {
  ORDER_ID_JSON_SCHEMA,
  ORDER_ID_PATTERN,
  REFUND_ARTIFACT_SCHEMA_VERSION,
  artifactIdFor,
  parseArgs,
} from './tool-support.js';
import type { RefundTool } from './tool-support.js';
import { MAX_REFUND_AMOUNT_CENTS } from './refund-create.js';

const ArgsSchema = z
  .object({
    refundId: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9_-]+$/),
    expectedOrderId: z.string().min(1).max(64).regex(ORDER_ID_PATTERN).optional(),
    expectedAmountCents: z.number().int().min(1).max(MAX_REFUND_AMOUNT_CENTS).optional(),
  })
  .strict();

/** Artifact type of a refund verification. */
export const REFUND_VERIFICATION_ARTIFACT_TYPE = 'refund.verification';

/** One check of a verification; `expected`/`actual` are absent when not applicable. */
export interface RefundCheck {
  readonly name: 'exists' | 'status_succeeded' | 'order_matches' | 'amount_matches';
  readonly passed: boolean;
  readonly expected?: string | number;
  readonly actual?: string | number;
}

/**
 * `refund.verify` v1 (read): read a refund back from the business store and check it independently:
 * it exists, its status is `succeeded`, and (when given) its order and amount are the expected ones.
 *
 * Output `{ refundId, status: 'passed' | 'failed', checks }` and a `verified` artifact of type
 * `refund.verification` whose verification subject is `{ externalId: refundId }`. A refund that does
 * not exist or does not match is a successful call with status `failed`, not an error. Fails only with
 * `refund.invalid_arguments` (or store errors).
 */
export function createRefundVerifyTool(store: RefundStore): RefundTool {
  return {
    definition: {
      name: 'refund.verify',
      version: 'v1',
      description:
        'Check in the payment system that a refund exists, succeeded, and matches the expected order and amount.',
      effect: 'read',
      parameters: {
        type: 'object',
        properties: {
          refundId: {
            type: 'string',
            description: 'Refund id returned by refund.create.',
            minLength: 1,
            maxLength: 64,
            pattern: '^[A-Za-z0-9_-]+$',
          },
          expectedOrderId: ORDER_ID_JSON_SCHEMA,
          expectedAmountCents: { type: 'integer', minimum: 1, maximum: MAX_REFUND_AMOUNT_CENTS },
        },
        required: ['refundId'],
        additionalProperties: false,
      },
    },
    executor: {
      async execute(ctx, call): Promise<ToolExecution> {
        const args = parseArgs(ArgsSchema, call);
        const refund = await store.readRefund(args.refundId, ctx);
        const checks: RefundCheck[] = [{ name: 'exists', passed: refund !== undefined }];
        if (refund !== undefined) {
          checks.push({
            name: 'status_succeeded',
            passed: refund.status === 'succeeded',
            expected: 'succeeded',
            actual: refund.status,
          });
          if (args.expectedOrderId !== undefined) {
            checks.push({
              name: 'order_matches',
              passed: refund.orderId === args.expectedOrderId,
              expected: args.expectedOrderId,
              actual: refund.orderId,
            });
          }
          if (args.expectedAmountCents !== undefined) {
            checks.push({
              name: 'amount_matches',
              passed: refund.amountCents === args.expectedAmountCents,
              expected: args.expectedAmountCents,
              actual: refund.amountCents,
            });
          }
        }
        const status = checks.every((c) => c.passed) ? 'passed' : 'failed';
        return {
          output: { refundId: args.refundId, status, checks },
          artifacts: [
            {
              id: artifactIdFor(call, REFUND_VERIFICATION_ARTIFACT_TYPE),
              type: REFUND_VERIFICATION_ARTIFACT_TYPE,
              schemaVersion: REFUND_ARTIFACT_SCHEMA_VERSION,
              provenance: 'verified',
              verification: { subject: { externalId: args.refundId }, status },
              data: {
                refundId: args.refundId,
                checks,
                checkedAt: store.now().toISOString(),
                refund: refund ?? null,
              },
            },
          ],
        };
      },
    },
  };
}
