import type { RefundPolicy, RefundSeedData } from './refund-types.js';

/** The customer the example's default user acts as. */
export const SEED_CUSTOMER_ID = 'C1001';
/** A different customer, owner of {@link SEED_ORDERS.otherCustomer}. */
export const SEED_OTHER_CUSTOMER_ID = 'C2002';
/** Auto-approval limit of the seeded policy R004: 5000.00 CNY (`limit.refund_amount=5000`). */
export const SEED_AUTO_APPROVE_LIMIT_CENTS = 500_000;
/** Bundle version of the policies in force. */
export const SEED_POLICY_VERSION = 18;

/** Ids of the seeded orders, by the situation each one stands for. */
export const SEED_ORDERS = {
  /** Paid 100 hours ago, not shipped: eligible for a full refund under R001. */
  paidUnshippedOver72h: 'ORD-1001',
  /** Paid 10 hours ago, not shipped: too early for R001. */
  paidUnshippedRecent: 'ORD-1002',
  /** Shipped and in transit. */
  shipped: 'ORD-1003',
  /** Delivered 3 days ago. */
  delivered: 'ORD-1004',
  /** Paid 96 hours ago, not shipped, 6800.00 CNY: over the auto-approval limit. */
  largeAmount: 'ORD-1005',
  /** Paid 80 hours ago, not shipped, but owned by {@link SEED_OTHER_CUSTOMER_ID}. */
  otherCustomer: 'ORD-2001',
  /** Cancelled before shipping. */
  cancelled: 'ORD-1006',
} as const;

const HOUR_MS = 3_600_000;

/** The refund policy bundle: v18 in force, plus the superseded v17 of R001. */
export const SEED_POLICIES: readonly RefundPolicy[] = [
  {
    id: 'R001',
    version: 17,
    title: 'Unshipped order refund (superseded)',
    text: 'A paid order not shipped within 48 hours may be refunded in full.',
    rule: { maxHoursUnshippedForFullRefund: 48, requiresOrderOwner: true },
    orderStatuses: ['paid'],
    logisticsStatuses: ['not_shipped'],
    effectiveFrom: '2025-01-01T00:00:00.000Z',
    effectiveTo: '2026-01-01T00:00:00.000Z',
  },
  {
    id: 'R001',
    version: SEED_POLICY_VERSION,
    title: 'Unshipped order refund',
    text: 'A paid order not shipped within 72 hours of payment may be refunded in full, to the original payment method, after the user confirms.',
    rule: { maxHoursUnshippedForFullRefund: 72, requiresOrderOwner: true, confirmation: 'confirm.user.v2' },
    orderStatuses: ['paid'],
    logisticsStatuses: ['not_shipped'],
    effectiveFrom: '2026-01-01T00:00:00.000Z',
  },
  {
    id: 'R002',
    version: SEED_POLICY_VERSION,
    title: 'Shipped order refund',
    text: 'An order already shipped is refunded only after the parcel is returned; no refund is created while it is in transit.',
    rule: { requiresReturn: true, requiresOrderOwner: true },
    orderStatuses: ['shipped'],
    logisticsStatuses: ['in_transit', 'returned'],
    effectiveFrom: '2026-01-01T00:00:00.000Z',
  },
  {
    id: 'R003',
    version: SEED_POLICY_VERSION,
    title: 'Delivered order return and refund',
    text: 'A delivered order may be returned and refunded within 7 days of delivery.',
    rule: { requiresReturn: true, returnWindowDays: 7, requiresOrderOwner: true },
    orderStatuses: ['delivered'],
    logisticsStatuses: ['delivered', 'returned'],
    effectiveFrom: '2026-01-01T00:00:00.000Z',
  },
  {
    id: 'R004',
    version: SEED_POLICY_VERSION,
    title: 'Large refund approval',
    text: 'A refund over 5000.00 CNY needs the approval of a human agent before it is created.',
    rule: { autoApproveLimitCents: SEED_AUTO_APPROVE_LIMIT_CENTS },
    orderStatuses: [],
    logisticsStatuses: [],
    effectiveFrom: '2026-01-01T00:00:00.000Z',
  },
];

/**
 * The default seed, with payment times relative to `now` so the order situations hold whatever
 * the wall clock. Deterministic for a given `now`.
 */
export function defaultSeedData(now: Date): RefundSeedData {
  const hoursAgo = (hours: number): string => new Date(now.getTime() - hours * HOUR_MS).toISOString();
  const order = (
    id: string,
    customerId: string,
    status: 'paid' | 'shipped' | 'delivered' | 'cancelled',
    amountCents: number,
    paidHoursAgo: number,
    phone: string,
  ) =>
    ({
      id,
      customerId,
      status,
      amountCents,
      currency: 'CNY',
      paidAt: hoursAgo(paidHoursAgo),
      phone,
    }) as const;
  return {
    orders: [
      order(SEED_ORDERS.paidUnshippedOver72h, SEED_CUSTOMER_ID, 'paid', 12_900, 100, '13800001001'),
      order(SEED_ORDERS.paidUnshippedRecent, SEED_CUSTOMER_ID, 'paid', 4_990, 10, '13800001001'),
      order(SEED_ORDERS.shipped, SEED_CUSTOMER_ID, 'shipped', 25_900, 30, '13800001001'),
      order(SEED_ORDERS.delivered, SEED_CUSTOMER_ID, 'delivered', 8_800, 120, '13800001001'),
      order(SEED_ORDERS.largeAmount, SEED_CUSTOMER_ID, 'paid', 680_000, 96, '13800001001'),
      order(SEED_ORDERS.otherCustomer, SEED_OTHER_CUSTOMER_ID, 'paid', 15_900, 80, '13900002002'),
      order(SEED_ORDERS.cancelled, SEED_CUSTOMER_ID, 'cancelled', 3_500, 50, '13800001001'),
    ],
    logistics: [
      { orderId: SEED_ORDERS.paidUnshippedOver72h, status: 'not_shipped', updatedAt: hoursAgo(100) },
      { orderId: SEED_ORDERS.paidUnshippedRecent, status: 'not_shipped', updatedAt: hoursAgo(10) },
      { orderId: SEED_ORDERS.shipped, status: 'in_transit', updatedAt: hoursAgo(20) },
      { orderId: SEED_ORDERS.delivered, status: 'delivered', updatedAt: hoursAgo(72) },
      { orderId: SEED_ORDERS.largeAmount, status: 'not_shipped', updatedAt: hoursAgo(96) },
      { orderId: SEED_ORDERS.otherCustomer, status: 'not_shipped', updatedAt: hoursAgo(80) },
      { orderId: SEED_ORDERS.cancelled, status: 'not_shipped', updatedAt: hoursAgo(48) },
    ],
    policies: SEED_POLICIES,
  };
}
