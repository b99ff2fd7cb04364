import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ToolCall, ToolDefinition, ToolExecutor } from '../../../src/index.js';
import { RefundErrorCode, RefundExampleError } from '../business/refund-errors.js';

/** A tool of the refund example: its model-visible definition and its executor bound to a store. */
export interface RefundTool {
  readonly definition: ToolDefinition;
  readonly executor: ToolExecutor;
}

/** Schema version written on every artifact the refund tools produce. */
export const REFUND_ARTIFACT_SCHEMA_VERSION = '1';

const MAX_ARTIFACT_ID_LENGTH = 200;

/**
 * Artifact id unique per call and part: `<runId>/<seq>/<type>[/<part>]`. An id longer than the
 * artifact limit (200) is replaced by `<type>/sha256:<hex>` of the same parts, still deterministic.
 */
export function artifactIdFor(call: ToolCall, type: string, part?: string): string {
  const id = [call.runId, String(call.seq), type, ...(part === undefined ? [] : [part])].join('/');
  if (id.length <= MAX_ARTIFACT_ID_LENGTH) return id;
  return `${type}/sha256:${createHash('sha256').update(id).digest('hex')}`;
}

/**
 * Check a call's arguments at the executor's own boundary (the registry has already checked them
 * against the JSON schema; this guards executors called directly or by a future registry).
 *
 * @throws RefundExampleError `refund.invalid_arguments` with the issues in details.
 */
export function parseArgs<T>(schema: z.ZodType<T>, call: ToolCall): T {
  const parsed = schema.safeParse(call.args);
  if (!parsed.success) {
    throw new RefundExampleError(RefundErrorCode.invalidArguments, `invalid arguments for ${call.tool}`, {
      tool: call.tool,
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  return parsed.data;
}

/** JSON schema of an order id, shared by the tools that take one. */
export const ORDER_ID_JSON_SCHEMA = {
  type: 'string',
  description: 'Order id, e.g. ORD-1001.',
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_-]+$',
} as const;

/** The zod twin of {@link ORDER_ID_JSON_SCHEMA}. */
export const ORDER_ID_PATTERN = /^[A-Za-z0-9_-]+$/;

/** Parameters of a tool whose only argument is an order id (`order.read`, `logistics.read`). */
export const ORDER_ID_ONLY_PARAMETERS = {
  type: 'object',
  properties: { orderId: ORDER_ID_JSON_SCHEMA },
  required: ['orderId'],
  additionalProperties: false,
} as const;

/** Zod twin of {@link ORDER_ID_ONLY_PARAMETERS}. */
export const OrderIdOnlyArgsSchema = z
  .object({ orderId: z.string().min(1).max(64).regex(ORDER_ID_PATTERN) })
  .strict();

/** `refund.order_not_found` for an order id the store does not know. */
export function orderNotFound(orderId: string): RefundExampleError {
  return new RefundExampleError(RefundErrorCode.orderNotFound, `order ${orderId} does not exist`, {
    orderId,
  });
}
