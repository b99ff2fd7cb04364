import { HarnessError } from '../../../src/index.js';

/**
 * Stable error codes of the refund example. All are terminal business or configuration failures
 * except `refund.operation_aborted`, which reports a cancelled call whose effect may or may not have
 * been committed (for `refund.create` the caller must reconcile).
 */
export const RefundErrorCode = {
  /** Tool arguments failed the executor's own boundary check. */
  invalidArguments: 'refund.invalid_arguments',
  orderNotFound: 'refund.order_not_found',
  logisticsNotFound: 'refund.logistics_not_found',
  /** The order is cancelled: nothing left to refund. */
  orderNotRefundable: 'refund.order_not_refundable',
  /** The requested amount plus what was already refunded exceeds the order amount. */
  amountExceedsOrder: 'refund.amount_exceeds_order',
  /** The idempotency key already names a refund for another order or amount. */
  idempotencyKeyReused: 'refund.idempotency_key_reused',
  /** `HARNESS_REFUND_STORE_LATENCY_MS` or `HARNESS_REFUND_STORE_LATENCY_PHASE` is malformed. */
  latencyConfigInvalid: 'refund.latency_config_invalid',
  /** An evaluation case's `initial_state` cannot be seeded. */
  caseStateInvalid: 'refund.case_state_invalid',
  /** Seed data breaks a store constraint. */
  seedInvalid: 'refund.seed_invalid',
  /** The call was cancelled while the store was sleeping for an injected latency. */
  operationAborted: 'refund.operation_aborted',
} as const;
export type RefundErrorCode = (typeof RefundErrorCode)[keyof typeof RefundErrorCode];

/** A failure of the refund example's business store or tools. */
export class RefundExampleError extends HarnessError {
  declare readonly code: RefundErrorCode;

  constructor(code: RefundErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}
