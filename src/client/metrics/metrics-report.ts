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
  /**
   * When runs of the window were given a rollout arm (`run.created.bundles`, docs/control-plane.md):
   * the same metrics per rollout and arm, to compare a candidate with its stable release.
   */
  readonly arms?: readonly {
    readonly rollout: string;
    readonly arm: string;
    readonly runs: number;
    readonly metrics: readonly SeedMetricRow[];
  }[];
}

/** The rollout and arm a run was assigned at its start (its `run.created` bundle pin), if any. */
export function rolloutArmOf(r: RunEvidence): { rollout: string; arm: string } | undefined {
  const pin = r.events.find((e) => e.type === 'run.created')?.data.bundles as
    { rollout?: unknown; arm?: unknown } | undefined;
  return typeof pin?.rollout === 'string' && typeof pin.arm === 'string'
    ? { rollout: pin.rollout, arm: pin.arm }
    : undefined;
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

function rowsOf(evidence: readonly RunEvidence[], i: BuildMetricsReportInput): SeedMetricRow[] {
  const values = {
    ...(i.extra ?? {}),
    ...contextMetricValues(evidence),
    ...evidenceMetricValues(computeEvidenceMetrics(evidence, i.context)),
  };
  return seedMetricRows(values, productionGap);
}

/** Build the report: every metric over all runs, and per rollout arm when runs have one. Pure. */
export function buildMetricsReport(i: BuildMetricsReportInput): MetricsReport {
  const groups = new Map<string, { rollout: string; arm: string; runs: RunEvidence[] }>();
  for (const r of i.evidence) {
    const a = rolloutArmOf(r);
    if (!a) continue;
    const key = `${a.rollout}\u0000${a.arm}`;
    const g = groups.get(key) ?? { ...a, runs: [] };
    g.runs.push(r);
    groups.set(key, g);
  }
  const arms = [...groups.values()]
    .sort((a, b) => a.rollout.localeCompare(b.rollout) || a.arm.localeCompare(b.arm))
    .map((g) => ({ rollout: g.rollout, arm: g.arm, runs: g.runs.length, metrics: rowsOf(g.runs, i) }));
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
    metrics: rowsOf(i.evidence, i),
    ...(arms.length > 0 ? { arms } : {}),
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
    ...(r.arms ?? []).flatMap((a) => [
      `## Rollout ${a.rollout}, arm ${a.arm} (${a.runs} runs)`,
      '',
      renderSeedMetricsTable(a.metrics),
      '',
    ]),
  ].join('\n');
}
