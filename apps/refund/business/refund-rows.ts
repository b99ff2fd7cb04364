import { z } from 'zod';
import {
  LogisticsStatusSchema,
  OrderStatusSchema,
  RefundRuleSchema,
  RefundStatusSchema,
} from './refund-types.js';
import type { Logistics, Order, Refund, RefundPolicy } from './refund-types.js';

/** Raw `orders` row. */
export interface OrderRow {
  id: string;
  customer_id: string;
  status: string;
  amount_cents: number;
  currency: string;
  paid_at: string;
  phone: string;
  version: number;
}

/** Raw `logistics` row. */
export interface LogisticsRow {
  order_id: string;
  status: string;
  updated_at: string;
  version: number;
}

/** Raw `refunds` row. */
export interface RefundRow {
  id: string;
  order_id: string;
  amount_cents: number;
  currency: string;
  reason: string;
  idempotency_key: string;
  status: string;
  created_at: string;
}

/** Raw `refund_policies` row; list and rule columns hold JSON. */
export interface PolicyRow {
  id: string;
  version: number;
  title: string;
  text: string;
  rule: string;
  order_statuses: string;
  logistics_statuses: string;
  effective_from: string;
  effective_to: string | null;
}

// Rows are checked on the way out: the file is shared with other processes and tools (sqlite3 CLI),
// so a hand-edited row that breaks the domain types fails loudly (ZodError) instead of leaking.

/** Map an `orders` row; throws ZodError on a status outside the domain. */
export function rowToOrder(row: OrderRow): Order {
  return {
    id: row.id,
    customerId: row.customer_id,
    status: OrderStatusSchema.parse(row.status),
    amountCents: row.amount_cents,
    currency: row.currency,
    paidAt: row.paid_at,
    phone: row.phone,
    version: row.version,
  };
}

/** Map a `logistics` row; throws ZodError on a status outside the domain. */
export function rowToLogistics(row: LogisticsRow): Logistics {
  return {
    orderId: row.order_id,
    status: LogisticsStatusSchema.parse(row.status),
    updatedAt: row.updated_at,
    version: row.version,
  };
}

/** Map a `refunds` row; throws ZodError on a status outside the domain. */
export function rowToRefund(row: RefundRow): Refund {
  return {
    id: row.id,
    orderId: row.order_id,
    amountCents: row.amount_cents,
    currency: row.currency,
    reason: row.reason,
    idempotencyKey: row.idempotency_key,
    status: RefundStatusSchema.parse(row.status),
    createdAt: row.created_at,
  };
}

/** Map a `refund_policies` row; throws ZodError or SyntaxError on malformed JSON columns. */
export function rowToPolicy(row: PolicyRow): RefundPolicy {
  const policy: RefundPolicy = {
    id: row.id,
    version: row.version,
    title: row.title,
    text: row.text,
    rule: RefundRuleSchema.parse(JSON.parse(row.rule)),
    orderStatuses: z.array(OrderStatusSchema).parse(JSON.parse(row.order_statuses)),
    logisticsStatuses: z.array(LogisticsStatusSchema).parse(JSON.parse(row.logistics_statuses)),
    effectiveFrom: row.effective_from,
  };
  return row.effective_to === null ? policy : { ...policy, effectiveTo: row.effective_to };
}
