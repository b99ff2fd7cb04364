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
