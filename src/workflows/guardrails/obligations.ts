/** The `mask.*` obligations the output guardrail applies. */
export const SUPPORTED_MASKS = ['phone', 'email', 'id_number'] as const;
export type MaskKind = (typeof SUPPORTED_MASKS)[number];

/** What the output guardrail reads from the policy obligations in force for a run. */
export interface OutputObligations {
  /** Masks to apply (`mask.phone`, `mask.email`, `mask.id_number`). */
  readonly masks: ReadonlySet<MaskKind>;
  /** `mask.*` obligations the guardrail does not know (it fails closed on them). */
  readonly unsupportedMasks: readonly string[];
  /** The lowest `limit.refund_amount=<amount>` in force, in cents; undefined when none. */
  readonly refundLimitCents?: number;
  /** `limit.refund_amount` values that are not a plain decimal amount (they fail closed too). */
  readonly invalidLimits: readonly string[];
}

const isMask = (k: string): k is MaskKind => (SUPPORTED_MASKS as readonly string[]).includes(k);

/**
 * Read the output-relevant obligations: `mask.<kind>` and `limit.refund_amount=<amount in currency
 * units>` (e.g. `5000` or `5000.50`). Other obligations (`confirm.user.v2`, `log.audit.high_risk`)
 * are not output obligations and are ignored here. Never throws.
 */
export function readObligations(obligations: readonly string[]): OutputObligations {
  const masks = new Set<MaskKind>();
  const unsupportedMasks: string[] = [];
  const invalidLimits: string[] = [];
  let refundLimitCents: number | undefined;
  for (const o of obligations) {
    if (o.startsWith('mask.')) {
      const kind = o.slice('mask.'.length);
      if (isMask(kind)) masks.add(kind);
      else unsupportedMasks.push(o);
      continue;
    }
    if (o.startsWith('limit.refund_amount=')) {
      const value = o.slice('limit.refund_amount='.length);
      const m = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(value);
      if (!m) {
        invalidLimits.push(o);
        continue;
      }
      const cents = Number(m[1]) * 100 + Number((m[2] ?? '0').padEnd(2, '0'));
      refundLimitCents = refundLimitCents === undefined ? cents : Math.min(refundLimitCents, cents);
    }
  }
  return {
    masks,
    unsupportedMasks,
    invalidLimits,
    ...(refundLimitCents !== undefined ? { refundLimitCents } : {}),
  };
}
