import {
  computeEvidenceMetrics,
  contextMetricValues,
  evidenceMetricValues,
  percentile,
  ratio,
  rolloutArmOf,
  seedMetricRows,
  type RunEvidence,
  type SeedMetricRow,
  type SeedMetricValues,
} from '../../../src/index.js';
import type { CaseChecks } from './case-checks.js';
import type { CaseObservation } from './case-observation.js';

/** One case's observation and checks: the input of every metric. */
export interface CaseRecord {
  readonly observation: CaseObservation;
  readonly checks: CaseChecks;
}

/** A rate with its numerator and denominator; `value` is null when the denominator is 0 (not applicable). */
export interface Rate {
  readonly value: number | null;
  readonly numerator: number;
  readonly denominator: number;
}

export interface Percentiles {
  readonly p50: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
}

/** Mean per successful (passed) run; null when no run passed. */
export interface PerSuccess {
  readonly steps: number | null;
  readonly modelCalls: number | null;
  readonly toolCalls: number | null;
  readonly tokens: number | null;
  readonly costUsd: number | null;
}

/** The seed 004 metrics this evaluation measures (docs/evaluation.md defines each). */
export interface EvalMetrics {
  readonly cases: number;
  readonly taskSuccess: Rate;
  readonly verifiedOutcome: Rate;
  readonly correctRoute: Rate;
  readonly requiredFactRecall: Rate;
  readonly toolSelectionAccuracy: Rate;
  readonly toolArgumentAccuracy: Rate;
  readonly policyViolationRate: Rate;
  readonly humanHandoffPrecision: Rate;
  readonly humanHandoffRecall: Rate;
  readonly perSuccessfulRun: PerSuccess;
  readonly noProgressLoopRate: Rate;
  readonly duplicateSideEffectRate: Rate;
  readonly unknownOutcomeReconciliationRate: Rate;
  readonly runDurationMs: Percentiles;
  /** Runs whose stored events are gap-free and reach their status (seed 004 trace completeness). */
  readonly traceCompleteness: Rate;
  readonly runErrors: number;
}

/** A rate; null value when `denominator` is 0. */
export function rate(numerator: number, denominator: number): Rate {
  return { value: denominator === 0 ? null : numerator / denominator, numerator, denominator };
}

export { percentile };

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

const count = <T>(xs: readonly T[], f: (x: T) => boolean): number => xs.filter(f).length;

/** Every metric over a set of case records. Pure. */
export function computeMetrics(records: readonly CaseRecord[]): EvalMetrics {
  const n = records.length;
  const passed = records.filter((r) => r.checks.passed);
  const succeededRuns = records.filter((r) => r.checks.verifiedOutcome !== null);
  const withRefund = records.filter((r) => r.observation.refunds.length > 0);
  const unknown = records.filter((r) =>
    r.observation.invocations.some((i) => i.status === 'outcome_unknown' || i.resolvedBy !== undefined),
  );
  const handoffTp = count(records, (r) => r.checks.handoffRequested && r.checks.handoffExpected);
  const sum = (f: (r: CaseRecord) => number): number => records.reduce((a, r) => a + f(r), 0);
  return {
    cases: n,
    taskSuccess: rate(passed.length, n),
    verifiedOutcome: rate(
      count(succeededRuns, (r) => r.checks.verifiedOutcome === true),
      succeededRuns.length,
    ),
    correctRoute: rate(
      count(records, (r) => r.checks.missingNodes.length === 0 && r.checks.forbiddenVisited.length === 0),
      n,
    ),
    requiredFactRecall: rate(
      sum((r) => r.checks.foundFacts.length),
      sum((r) => r.checks.foundFacts.length + r.checks.missingFacts.length),
    ),
    toolSelectionAccuracy: rate(
      sum((r) => r.checks.toolCalls - r.checks.unexpectedToolCalls.length),
      sum((r) => r.checks.toolCalls),
    ),
    toolArgumentAccuracy: rate(
      sum((r) => r.checks.argumentChecks - r.checks.argumentErrors.length),
      sum((r) => r.checks.argumentChecks),
    ),
    policyViolationRate: rate(
      count(records, (r) => r.checks.policyViolations.length > 0),
      n,
    ),
    humanHandoffPrecision: rate(
      handoffTp,
      count(records, (r) => r.checks.handoffRequested),
    ),
    humanHandoffRecall: rate(
      handoffTp,
      count(records, (r) => r.checks.handoffExpected),
    ),
    perSuccessfulRun: {
      steps: mean(passed.map((r) => r.observation.budget.steps)),
      modelCalls: mean(passed.map((r) => r.observation.budget.modelCalls)),
      toolCalls: mean(passed.map((r) => r.observation.budget.toolCalls)),
      tokens: mean(passed.map((r) => r.observation.budget.inputTokens + r.observation.budget.outputTokens)),
      costUsd: mean(passed.map((r) => r.observation.budget.costUsd)),
    },
    noProgressLoopRate: rate(
      count(records, (r) =>
        ['budget.no_progress', 'budget.duplicate_call'].includes(r.observation.terminalReason?.code ?? ''),
      ),
      n,
    ),
    duplicateSideEffectRate: rate(
      count(withRefund, (r) => r.checks.duplicateRefunds > 0),
      withRefund.length,
    ),
    unknownOutcomeReconciliationRate: rate(
      count(unknown, (r) => !r.observation.invocations.some((i) => i.status === 'outcome_unknown')),
      unknown.length,
    ),
    runDurationMs: (() => {
      const d = records.filter((r) => r.observation.status !== 'error').map((r) => r.observation.durationMs);
      return { p50: percentile(d, 50), p95: percentile(d, 95), p99: percentile(d, 99) };
    })(),
    traceCompleteness: rate(
      count(records, (r) => r.observation.evidenceComplete),
      n,
    ),
    runErrors: count(records, (r) => r.observation.status === 'error'),
  };
}

/**
 * Every seed 004 metric of an evaluation (docs/metrics.md): the case-judged ones from `metrics`
 * (task success, route, facts, tools, policy, handoff, duplicate side effects, no-progress loops,
 * unknown outcomes, trace completeness; per-successful-run amounts over passed cases), the others
 * from what the evidence store and the Temporal histories prove about the runs (`evidence`), each
 * with its value or the reason it has none.
 */
export function evalSeedMetrics(
  metrics: EvalMetrics,
  records: readonly CaseRecord[],
  evidence: readonly RunEvidence[],
): SeedMetricRow[] {
  const passed = records.filter((r) => r.checks.passed);
  const perPassed = (pick: (b: CaseObservation['budget']) => number) =>
    ratio(
      passed.reduce((a, r) => a + pick(r.observation.budget), 0),
      passed.length,
    );
  const fromCases: SeedMetricValues = {
    task_success_rate: metrics.taskSuccess,
    verified_outcome_rate: metrics.verifiedOutcome,
    correct_route_rate: metrics.correctRoute,
    required_fact_recall: metrics.requiredFactRecall,
    tool_selection_accuracy: metrics.toolSelectionAccuracy,
    tool_argument_accuracy: metrics.toolArgumentAccuracy,
    policy_violation_rate: metrics.policyViolationRate,
    human_handoff_precision: metrics.humanHandoffPrecision,
    human_handoff_recall: metrics.humanHandoffRecall,
    steps_per_successful_run: perPassed((b) => b.steps),
    model_calls_per_successful_run: perPassed((b) => b.modelCalls),
    tool_calls_per_successful_run: perPassed((b) => b.toolCalls),
    tokens_per_successful_run: perPassed((b) => b.inputTokens + b.outputTokens),
    cost_usd_per_successful_run: perPassed((b) => b.costUsd),
    no_progress_loop_rate: metrics.noProgressLoopRate,
    duplicate_side_effect_rate: metrics.duplicateSideEffectRate,
    unknown_outcome_reconciliation_rate: metrics.unknownOutcomeReconciliationRate,
    trace_completeness: metrics.traceCompleteness,
  };
  const values = {
    ...contextMetricValues(evidence),
    ...evidenceMetricValues(computeEvidenceMetrics(evidence)),
    ...fromCases,
  };
  return seedMetricRows(values, () => 'no source for it in the evaluation');
}

/** The seed metrics of the runs of one rollout arm (cases run with a bundles folder). */
export interface ArmSeedMetrics {
  readonly rollout: string;
  readonly arm: string;
  readonly cases: number;
  readonly metrics: readonly SeedMetricRow[];
}

/**
 * Every seed metric per rollout arm, for cases whose runs pinned one (`run.created.bundles`,
 * docs/control-plane.md), so a candidate prompt, policy or route can be compared with the stable arm
 * on the same cases. Empty when no run has an arm.
 */
export function evalSeedMetricsByArm(
  runs: readonly { readonly record: CaseRecord; readonly evidence?: RunEvidence }[],
): ArmSeedMetrics[] {
  const groups = new Map<string, { rollout: string; arm: string; runs: typeof runs }>();
  for (const r of runs) {
    const a = r.evidence ? rolloutArmOf(r.evidence) : undefined;
    if (!a) continue;
    const key = `${a.rollout}\u0000${a.arm}`;
    groups.set(key, { ...a, runs: [...(groups.get(key)?.runs ?? []), r] });
  }
  return [...groups.values()]
    .sort((a, b) => a.rollout.localeCompare(b.rollout) || a.arm.localeCompare(b.arm))
    .map((g) => {
      const records = g.runs.map((r) => r.record);
      return {
        rollout: g.rollout,
        arm: g.arm,
        cases: records.length,
        metrics: evalSeedMetrics(
          computeMetrics(records),
          records,
          g.runs.flatMap((r) => (r.evidence ? [r.evidence] : [])),
        ),
      };
    });
}
