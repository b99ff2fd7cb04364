import { z } from 'zod';
import { RefundErrorCode, RefundExampleError } from './refund-errors.js';
import { LogisticsStatusSchema, OrderStatusSchema } from './refund-types.js';
import type { LogisticsStatus, OrderStatus, RefundSeedData } from './refund-types.js';
import { SEED_CUSTOMER_ID, SEED_POLICIES } from './seed-data.js';

/**
 * The business part of an evaluation case's `initial_state` (seed 004, e.g. H-RF-017), in the case's
 * snake_case. Unknown keys are rejected so a typo cannot silently seed the wrong situation.
 */
export const CaseInitialStateSchema = z
  .object({
    order_status: OrderStatusSchema,
    /** Defaults from the order status: paid/cancelled -> not_shipped, shipped -> in_transit, delivered -> delivered. */
    logistics_status: LogisticsStatusSchema.optional(),
    /** Hours between payment and `now`; default 1. */
    hours_since_payment: z
      .number()
      .nonnegative()
      .max(24 * 365 * 10)
      .optional(),
    order_id: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9_-]+$/)
      .optional(),
    customer_id: z.string().min(1).max(64).optional(),
    amount_cents: z.number().int().positive().max(100_000_000).optional(),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .optional(),
    phone: z.string().min(1).max(32).optional(),
  })
  .strict();
export type CaseInitialState = z.infer<typeof CaseInitialStateSchema>;

/** Order id used when a case names none. */
export const CASE_DEFAULT_ORDER_ID = 'ORD-CASE-1';
/** Amount used when a case names none: 129.00 CNY. */
export const CASE_DEFAULT_AMOUNT_CENTS = 12_900;

const DEFAULT_LOGISTICS: Record<OrderStatus, LogisticsStatus> = {
  paid: 'not_shipped',
  shipped: 'in_transit',
  delivered: 'delivered',
  cancelled: 'not_shipped',
};

/**
 * Turn a case's `initial_state` into seed data: one order, its logistics row and the policy bundle.
 * Deterministic for a given `now`.
 *
 * @throws RefundExampleError `refund.case_state_invalid` when `initialState` does not match
 *   {@link CaseInitialStateSchema}; details carry the zod issues.
 */
export function caseSeedData(initialState: unknown, now: Date): RefundSeedData {
  const parsed = CaseInitialStateSchema.safeParse(initialState);
  if (!parsed.success) {
    throw new RefundExampleError(
      RefundErrorCode.caseStateInvalid,
      `invalid case initial_state: ${parsed.error.message}`,
      {
        issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      },
    );
  }
  const state = parsed.data;
  const orderId = state.order_id ?? CASE_DEFAULT_ORDER_ID;
  const paidAt = new Date(now.getTime() - (state.hours_since_payment ?? 1) * 3_600_000).toISOString();
  return {
    orders: [
      {
        id: orderId,
        customerId: state.customer_id ?? SEED_CUSTOMER_ID,
        status: state.order_status,
        amountCents: state.amount_cents ?? CASE_DEFAULT_AMOUNT_CENTS,
        currency: state.currency ?? 'CNY',
        paidAt,
        phone: state.phone ?? '13800001001',
      },
    ],
    logistics: [
      {
        orderId,
        status: state.logistics_status ?? DEFAULT_LOGISTICS[state.order_status],
        updatedAt: state.order_status === 'paid' ? paidAt : now.toISOString(),
      },
    ],
    policies: SEED_POLICIES,
  };
}
