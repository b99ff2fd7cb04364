/**
 * One measured value of a seed 004 metric: a ratio with its numerator and denominator (`value` null
 * when the denominator is 0), or not computable, with the reason. Every metric a report shows is one
 * of these, so a reader can always tell "0 %" from "nothing to measure" from "cannot be measured here".
 */
export type MetricValue =
  | { readonly value: number | null; readonly numerator: number; readonly denominator: number }
  | { readonly value: null; readonly reason: string };

/** Percentiles of a distribution, with the number of samples; null values when there are none. */
export interface Distribution {
  readonly samples: number;
  readonly p50: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
}

/** A ratio; `value` null when `denominator` is 0 (nothing to measure). */
export function ratio(numerator: number, denominator: number): MetricValue {
  return { value: denominator === 0 ? null : numerator / denominator, numerator, denominator };
}

/** A metric that cannot be computed from the evidence at hand, and why. */
export function notComputable(reason: string): MetricValue {
  return { value: null, reason };
}

/** Nearest-rank percentile (`p` in 0..100) of `values`; null for an empty list. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? null;
}

/** p50 / p95 / p99 of `values`. */
export function distribution(values: readonly number[]): Distribution {
  return {
    samples: values.length,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
  };
}

/** `12.5% (1/8)`, `n/a (0/0)`, or `not computable: <reason>`. */
export function formatMetric(m: MetricValue, asPercent = true): string {
  if ('reason' in m) return `not computable: ${m.reason}`;
  if (m.value === null) return `n/a (0/${m.denominator})`;
  const shown = asPercent ? `${(m.value * 100).toFixed(1)}%` : m.value.toFixed(2);
  // A mean of shares has a fractional numerator: two decimals are enough to read it.
  const top = Number.isInteger(m.numerator) ? String(m.numerator) : m.numerator.toFixed(2);
  return `${shown} (${top}/${m.denominator})`;
}
