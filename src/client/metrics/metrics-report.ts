import { contextMetricValues } from './context-metric-values.js';
import {
  computeEvidenceMetrics,
  type EvidenceMetricsContext,
  type RunEvidence,
} from './run-evidence-metrics.js';
import {
  evidenceMetricValues,
  renderSeedMetricsTable,
  seedMetricRows,
  type SeedMetricId,
  type SeedMetricRow,
  type SeedMetricValues,
} from './seed-metrics.js';

/** The JSON report of `harness metrics`: every seed metric over the runs created in a window. */
export interface MetricsReport {
  readonly schemaVersion: 1;
  readonly generatedAt: string;
  readonly window: { readonly from: string; readonly to: string };
  readonly tenant: string | null;
  /** Runs measured (created in the window, at most `limit`). */
  readonly runs: number;
  /** More runs were created in the window than `limit`: the newest `limit` were measured. */
  readonly truncated: boolean;
  /** Which sources were read; a string says why one was not. */
  readonly sources: { readonly history: true | string; readonly replay: true | string };
  readonly metrics: readonly SeedMetricRow[];
}

/** Metrics that judge a run against what it should have done: only the evaluation knows that. */
const NEEDS_EXPECTATIONS: readonly SeedMetricId[] = [
  'task_success_rate',
  'verified_outcome_rate',
  'correct_route_rate',
  'required_fact_recall',
  'tool_selection_accuracy',
  'tool_argument_accuracy',
  'policy_violation_rate',
  'human_handoff_precision',
  'human_handoff_recall',
  'duplicate_side_effect_rate',
];

/**
 * Why a metric has no value in a report over production runs: it needs a case's expectations and
 * the business system (the evaluation computes it).
 */
export function productionGap(id: SeedMetricId): string {
  if (NEEDS_EXPECTATIONS.includes(id))
    return 'needs what the run should have done (a case) and the business system: computed by the evaluation (docs/evaluation.md)';
  return 'no source for it here (docs/metrics.md)';
}

export interface BuildMetricsReportInput {
  readonly evidence: readonly RunEvidence[];
  readonly window: { readonly from: string; readonly to: string };
  readonly tenant?: string;
  readonly truncated: boolean;
  readonly context: EvidenceMetricsContext;
  /** Values from other sources (context metrics), winning over nothing: evidence metrics come first. */
  readonly extra?: SeedMetricValues;
  readonly now?: Date;
}

/** Build the report. Pure. */
export function buildMetricsReport(i: BuildMetricsReportInput): MetricsReport {
  const values = {
    ...(i.extra ?? {}),
    ...contextMetricValues(i.evidence),
    ...evidenceMetricValues(computeEvidenceMetrics(i.evidence, i.context)),
  };
  return {
    schemaVersion: 1,
    generatedAt: (i.now ?? new Date()).toISOString(),
    window: i.window,
    tenant: i.tenant ?? null,
    runs: i.evidence.length,
    truncated: i.truncated,
    sources: {
      history: i.context.historyUnavailable ?? true,
      replay: i.context.replayUnavailable ?? true,
    },
    metrics: seedMetricRows(values, productionGap),
  };
}

/** The Markdown form of the report. */
export function renderMetricsMarkdown(r: MetricsReport): string {
  const note = (name: string, v: true | string): string =>
    v === true ? `${name}: read` : `${name}: not read (${v})`;
  return [
    '# Run metrics',
    '',
    `Runs created from ${r.window.from} to ${r.window.to}${r.tenant ? ` for tenant ${r.tenant}` : ''}: ${r.runs}${r.truncated ? ' (the newest only: more runs matched than --limit)' : ''}.`,
    `Sources: evidence store; ${note('Temporal histories', r.sources.history)}; ${note('failure sample replays', r.sources.replay)}.`,
    '',
    renderSeedMetricsTable(r.metrics),
    '',
  ].join('\n');
}
