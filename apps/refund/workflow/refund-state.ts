import { z } from 'zod';
import { builtOnFirstUse } from '../../../src/workflows/index.js';

/** The typed state of the refund graph (seed 004 refund reference). Business truth stays in the store. */
export interface RefundGraphState extends Record<string, unknown> {
  message: string;
  customerId: string | null;
  orderId: string | null;
  intent: 'refund' | 'other' | null;
  order: {
    orderId: string;
    customerId: string;
    status: string;
    amountCents: number;
    currency: string;
    paidAt: string;
    factRef: string;
  } | null;
  orderArtifactId: string | null;
  logistics: { status: string; factRef: string } | null;
  policies: { ref: string; id: string; rule: Record<string, unknown> }[];
  decision: { eligible: boolean; amountCents: number; reasonCode: string; policyRef: string | null } | null;
  confirmation_granted: boolean | null;
  refundId: string | null;
  refundArtifactId: string | null;
  verified: boolean | null;
  outcome: 'refunded' | 'refused' | 'declined_by_user' | null;
  refusalReason: string | null;
}

/**
 * The refund graph's state schema: every state patch a node returns must fit it (the graph node
 * checks refuse any other key and any value of the wrong shape with `graph.invalid_state_patch`).
 * Built on first use (see builtOnFirstUse): a function, since the graph needs the object schema itself.
 */
export const refundGraphStateSchema = builtOnFirstUse(() => {
  const factRef = z.string().min(1).max(500);
  return z.strictObject({
    message: z.string().max(2000),
    customerId: z.string().min(1).max(200).nullable(),
    orderId: z.string().min(1).max(200).nullable(),
    intent: z.enum(['refund', 'other']).nullable(),
    order: z
      .strictObject({
        orderId: z.string().min(1).max(200),
        customerId: z.string().max(200),
        status: z.string().max(100),
        amountCents: z.number().int().nonnegative(),
        currency: z.string().max(10),
        paidAt: z.string().max(100),
        factRef,
      })
      .nullable(),
    orderArtifactId: z.string().min(1).nullable(),
    logistics: z.strictObject({ status: z.string().max(100), factRef }).nullable(),
    policies: z
      .array(z.strictObject({ ref: z.string(), id: z.string(), rule: z.record(z.string(), z.unknown()) }))
      .max(50),
    decision: z
      .strictObject({
        eligible: z.boolean(),
        amountCents: z.number().int().nonnegative(),
        reasonCode: z.string().min(1).max(200),
        policyRef: z.string().nullable(),
      })
      .nullable(),
    confirmation_granted: z.boolean().nullable(),
    refundId: z.string().min(1).max(200).nullable(),
    refundArtifactId: z.string().min(1).nullable(),
    verified: z.boolean().nullable(),
    outcome: z.enum(['refunded', 'refused', 'declined_by_user']).nullable(),
    refusalReason: z.string().max(2000).nullable(),
  });
});

export function initialRefundState(task: Readonly<Record<string, unknown>>): RefundGraphState {
  const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
  return {
    message: str(task.message) ?? '',
    customerId: str(task.customerId),
    orderId: str(task.orderId),
    intent: null,
    order: null,
    orderArtifactId: null,
    logistics: null,
    policies: [],
    decision: null,
    confirmation_granted: null,
    refundId: null,
    refundArtifactId: null,
    verified: null,
    outcome: null,
    refusalReason: null,
  };
}
