import { z } from 'zod';

/** Status of an order in the refund example's business store. */
export const OrderStatusSchema = z.enum(['paid', 'shipped', 'delivered', 'cancelled']);
export type OrderStatus = z.infer<typeof OrderStatusSchema>;

/** Status of an order's shipment. */
export const LogisticsStatusSchema = z.enum(['not_shipped', 'in_transit', 'delivered', 'returned']);
export type LogisticsStatus = z.infer<typeof LogisticsStatusSchema>;

/** Status of a refund row. The example's payment side settles synchronously, so new refunds are `succeeded`. */
export const RefundStatusSchema = z.enum(['pending', 'succeeded', 'failed']);
export type RefundStatus = z.infer<typeof RefundStatusSchema>;

/** An order as the business system holds it. `version` grows by one on every change of the row. */
export interface Order {
  readonly id: string;
  readonly customerId: string;
  readonly status: OrderStatus;
  readonly amountCents: number;
  readonly currency: string;
  /** ISO-8601 UTC. */
  readonly paidAt: string;
  readonly phone: string;
  readonly version: number;
}

/** The shipment state of one order. */
export interface Logistics {
  readonly orderId: string;
  readonly status: LogisticsStatus;
  /** ISO-8601 UTC. */
  readonly updatedAt: string;
  readonly version: number;
}

/** A refund created against an order. `idempotencyKey` is unique across the store. */
export interface Refund {
  readonly id: string;
  readonly orderId: string;
  readonly amountCents: number;
  readonly currency: string;
  readonly reason: string;
  readonly idempotencyKey: string;
  readonly status: RefundStatus;
  /** ISO-8601 UTC. */
  readonly createdAt: string;
}

/**
 * Machine-readable rule data of a policy. Every field is optional; a policy states only what it
 * rules on. Amounts are in cents of the order's currency.
 */
export const RefundRuleSchema = z
  .object({
    /** A paid order not shipped for at least this many hours may be refunded in full. */
    maxHoursUnshippedForFullRefund: z.number().int().positive().optional(),
    /** Refunds above this amount need a human approval. */
    autoApproveLimitCents: z.number().int().positive().optional(),
    /** The goods must come back before the money does. */
    requiresReturn: z.boolean().optional(),
    /** Days after delivery during which a return-and-refund is accepted. */
    returnWindowDays: z.number().int().positive().optional(),
    /** Only the order's own customer may ask. */
    requiresOrderOwner: z.boolean().optional(),
    /** Confirmation the user gives before a refund is created. */
    confirmation: z.string().min(1).optional(),
  })
  .strict();
export type RefundRule = z.infer<typeof RefundRuleSchema>;

/** One version of one refund policy clause, e.g. `R001` of bundle version 18. */
export interface RefundPolicy {
  /** Clause id, `R` followed by three digits. */
  readonly id: string;
  /** Bundle version the clause belongs to (`policy://refund/v18#R001`). */
  readonly version: number;
  readonly title: string;
  readonly text: string;
  readonly rule: RefundRule;
  /** Order statuses the clause applies to; empty means all. */
  readonly orderStatuses: readonly OrderStatus[];
  /** Logistics statuses the clause applies to; empty means all. */
  readonly logisticsStatuses: readonly LogisticsStatus[];
  /** ISO-8601 UTC, inclusive. */
  readonly effectiveFrom: string;
  /** ISO-8601 UTC, exclusive; absent while the clause is in force. */
  readonly effectiveTo?: string;
}

/** Everything `seed` writes. Rows are upserted by primary key. */
export interface RefundSeedData {
  readonly orders: readonly Omit<Order, 'version'>[];
  readonly logistics: readonly Omit<Logistics, 'version'>[];
  readonly policies: readonly RefundPolicy[];
}
