import type { EvidenceMetrics } from './run-evidence-metrics.js';
import { formatMetric, notComputable, type Distribution, type MetricValue } from './metric-value.js';

/** The groups of seed 004's metrics. */
export type SeedMetricGroup = 'quality' | 'efficiency' | 'reliability' | 'evidence' | 'context';

/** How a value reads: a rate, an amount per run (or per step), or milliseconds. */
export type SeedMetricUnit = 'rate' | 'amount' | 'ms';

/** Every metric seed 004 names, in its order, with its group and unit. */
export const SEED_METRICS = [
  ['task_success_rate', 'quality', 'Task success rate', 'rate'],
  ['verified_outcome_rate', 'quality', 'Verified outcome rate', 'rate'],
  ['correct_route_rate', 'quality', 'Correct route rate', 'rate'],
  ['required_fact_recall', 'quality', 'Required fact recall', 'rate'],
  ['tool_selection_accuracy', 'quality', 'Tool selection accuracy', 'rate'],
  ['tool_argument_accuracy', 'quality', 'Tool argument accuracy', 'rate'],
  ['policy_violation_rate', 'quality', 'Policy violation rate', 'rate'],
  ['human_handoff_precision', 'quality', 'Human handoff precision', 'rate'],
  ['human_handoff_recall', 'quality', 'Human handoff recall', 'rate'],
  ['response_faithfulness', 'quality', 'Response faithfulness', 'rate'],
  ['steps_per_successful_run', 'efficiency', 'Steps per successful run', 'amount'],
  ['model_calls_per_successful_run', 'efficiency', 'Model calls per successful run', 'amount'],
  ['tool_calls_per_successful_run', 'efficiency', 'Tool calls per successful run', 'amount'],
  ['tokens_per_successful_run', 'efficiency', 'Tokens per successful run', 'amount'],
  ['cost_usd_per_successful_run', 'efficiency', 'Cost (USD) per successful run', 'amount'],
  ['no_progress_loop_rate', 'efficiency', 'No-progress loop rate', 'rate'],
  ['context_utilization', 'efficiency', 'Context utilization', 'rate'],
  ['run_success_rate', 'reliability', 'Run success rate', 'rate'],
  ['run_failure_rate', 'reliability', 'Run failure rate', 'rate'],
  ['run_cancellation_rate', 'reliability', 'Run cancellation rate', 'rate'],
  ['checkpoint_recovery_success_rate', 'reliability', 'Checkpoint recovery success rate', 'rate'],
  ['duplicate_side_effect_rate', 'reliability', 'Duplicate side-effect rate', 'rate'],
  ['unknown_outcome_reconciliation_rate', 'reliability', 'Unknown outcome reconciliation rate', 'rate'],
  ['retry_amplification', 'reliability', 'Retry amplification (attempts per call)', 'amount'],
  ['run_duration', 'reliability', 'Run duration', 'ms'],
  ['queue_wait_time', 'reliability', 'Queue wait time', 'ms'],
  ['trace_completeness', 'evidence', 'Trace completeness', 'rate'],
  ['version_attribution_coverage', 'evidence', 'Version attribution coverage', 'rate'],
  ['failure_reproduction_rate', 'evidence', 'Failure reproduction rate', 'rate'],
  ['state_transition_integrity', 'evidence', 'State transition integrity', 'rate'],
  ['audit_evidence_coverage', 'evidence', 'Audit evidence coverage', 'rate'],
  ['context_precision', 'context', 'Context precision', 'rate'],
  ['context_required_fact_recall', 'context', 'Context required fact recall', 'rate'],
  ['stale_context_rate', 'context', 'Stale context rate', 'rate'],
  ['unauthorized_context_rate', 'context', 'Unauthorized context rate', 'rate'],
  ['instruction_data_separation_pass_rate', 'context', 'Instruction/data separation pass rate', 'rate'],
  ['tokens_per_successful_step', 'context', 'Tokens per successful step', 'amount'],
] as const satisfies readonly (readonly [string, SeedMetricGroup, string, SeedMetricUnit])[];

export type SeedMetricId = (typeof SEED_METRICS)[number][0];

/** One row of a metrics report: the metric and its value, distribution, or the reason it has none. */
export interface SeedMetricRow {
  readonly id: SeedMetricId;
  readonly group: SeedMetricGroup;
  readonly name: string;
  readonly unit: SeedMetricUnit;
  readonly result: MetricValue | Distribution;
}

export type SeedMetricValues = Partial<Record<SeedMetricId, MetricValue | Distribution>>;

/** The seed metrics the evidence metrics give. */
export function evidenceMetricValues(m: EvidenceMetrics): SeedMetricValues {
  return {
    response_faithfulness: m.responseFaithfulness,
    steps_per_successful_run: m.stepsPerSuccessfulRun,
    model_calls_per_successful_run: m.modelCallsPerSuccessfulRun,
    tool_calls_per_successful_run: m.toolCallsPerSuccessfulRun,
    tokens_per_successful_run: m.tokensPerSuccessfulRun,
    cost_usd_per_successful_run: m.costUsdPerSuccessfulRun,
    no_progress_loop_rate: m.noProgressLoopRate,
    run_success_rate: m.runSuccessRate,
    run_failure_rate: m.runFailureRate,
    run_cancellation_rate: m.runCancellationRate,
    checkpoint_recovery_success_rate: m.checkpointRecoverySuccessRate,
    unknown_outcome_reconciliation_rate: m.unknownOutcomeReconciliationRate,
    retry_amplification: m.retryAmplification,
    run_duration: m.runDurationMs,
    queue_wait_time: m.queueWaitMs,
    trace_completeness: m.traceCompleteness,
    version_attribution_coverage: m.versionAttributionCoverage,
    failure_reproduction_rate: m.failureReproductionRate,
    state_transition_integrity: m.stateTransitionIntegrity,
    audit_evidence_coverage: m.auditEvidenceCoverage,
  };
}

/**
 * Every seed metric, in the seed's order: the value `values` gives it, else not computable with
 * `missing(id)` as the reason. Pure.
 */
export function seedMetricRows(
  values: SeedMetricValues,
  missing: (id: SeedMetricId, group: SeedMetricGroup) => string,
): SeedMetricRow[] {
  return SEED_METRICS.map(([id, group, name, unit]) => ({
    id,
    group,
    name,
    unit,
    result: values[id] ?? notComputable(missing(id, group)),
  }));
}

const isDistribution = (r: MetricValue | Distribution): r is Distribution => 'samples' in r;

/** One row's value as text: `12.5% (1/8)`, `2.40 (12/5)`, `p50 3 / p95 9 / p99 12 ms (40)`, or the reason. */
export function formatSeedMetric(row: SeedMetricRow): string {
  const r = row.result;
  if (isDistribution(r)) {
    if (r.samples === 0) return 'n/a (no samples)';
    const v = (x: number | null): string => (x === null ? 'n/a' : x.toFixed(0));
    return `p50 ${v(r.p50)} / p95 ${v(r.p95)} / p99 ${v(r.p99)} ms (${r.samples} samples)`;
  }
  return formatMetric(r, row.unit === 'rate');
}

/** The Markdown table of `rows`, grouped as the seed groups them. */
export function renderSeedMetricsTable(rows: readonly SeedMetricRow[]): string {
  const lines = ['| Group | Metric | Value |', '|---|---|---|'];
  for (const row of rows) lines.push(`| ${row.group} | ${row.name} | ${formatSeedMetric(row)} |`);
  return lines.join('\n');
}
