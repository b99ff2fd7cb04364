import { contextMetricsOfRun, stepsOfEvents } from '../../activities/context/run-metrics.js';
import { notComputable, ratio, type MetricValue } from './metric-value.js';
import type { RunEvidence } from './run-evidence-metrics.js';
import type { SeedMetricValues } from './seed-metrics.js';

/** Why precision has no value: it needs each call's relevant facts, which no source labels yet. */
export const PRECISION_NEEDS_LABELS =
  'needs the facts relevant to each model call (labels); neither cases nor runs carry them yet';

/**
 * The context metrics of seed 004 over the runs' stored request packages (docs/context.md, docs/metrics.md):
 * the per-run report of `contextMetricsOfRun`, combined over runs as means over packages (numerator:
 * the sum of the per-package shares, or the passing packages; denominator: the packages), and tokens
 * per successful step over all steps (numerator: the tokens of every model call; denominator: the
 * successful steps). Runs without packages (loaded with `contextPackages`) count for nothing; with
 * none at all every context metric says why. Pure.
 */
export function contextMetricValues(runs: readonly RunEvidence[]): SeedMetricValues {
  const reports = runs.flatMap((r) =>
    r.contextPackages && r.contextPackages.length > 0
      ? [contextMetricsOfRun({ runId: r.runId, packages: r.contextPackages, events: r.events })]
      : [],
  );
  const packages = reports.reduce((n, m) => n + m.packages, 0);
  if (packages === 0) {
    const none = notComputable('no model call of these runs has a stored request package');
    return {
      context_utilization: none,
      context_precision: none,
      context_required_fact_recall: none,
      stale_context_rate: none,
      unauthorized_context_rate: none,
      instruction_data_separation_pass_rate: none,
      tokens_per_successful_step: none,
    };
  }
  const weighted = (pick: (m: (typeof reports)[number]) => number): MetricValue =>
    ratio(
      reports.reduce((n, m) => n + pick(m) * m.packages, 0),
      packages,
    );
  const steps = runs.filter((r) => r.contextPackages?.length).flatMap((r) => stepsOfEvents(r.events));
  return {
    context_utilization: weighted((m) => m.utilization),
    context_precision: notComputable(PRECISION_NEEDS_LABELS),
    context_required_fact_recall: weighted((m) => m.requiredFactRecall),
    stale_context_rate: weighted((m) => m.staleRate),
    unauthorized_context_rate: weighted((m) => m.unauthorizedRate),
    instruction_data_separation_pass_rate: weighted((m) => m.separationPassRate),
    tokens_per_successful_step: ratio(
      steps.reduce((n, s) => n + s.tokens, 0),
      steps.filter((s) => s.succeeded).length,
    ),
  };
}
