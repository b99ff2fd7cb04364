import type { CaseRun } from './case-driver.js';
import { renderSeedMetricsTable, type SeedMetricRow } from '../../../src/index.js';
import type { ArmSeedMetrics, EvalMetrics, Rate } from './metrics.js';

/** One case in the report. */
export interface CaseSummary {
  readonly caseId: string;
  readonly workflowId: string;
  readonly passed: boolean;
  readonly status: string;
  readonly expectedStatus: string;
  readonly failures: readonly string[];
  readonly visitedNodes: readonly string[];
  readonly tools: readonly string[];
  readonly refunds: number;
  readonly durationMs: number;
  readonly failureSample?: string;
}

/** The JSON report of one evaluation. */
export interface EvalReport {
  readonly schemaVersion: 1;
  readonly casesDir: string;
  readonly policyOverride: string | null;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly concurrency: number;
  readonly metrics: EvalMetrics;
  /** Every seed 004 metric, value or reason (docs/metrics.md). */
  readonly seedMetrics: readonly SeedMetricRow[];
  /** With a bundles folder: every seed metric per rollout arm the runs pinned (docs/control-plane.md). */
  readonly seedMetricsByArm?: readonly ArmSeedMetrics[];
  readonly cases: readonly CaseSummary[];
}

export function summarizeCase(r: CaseRun): CaseSummary {
  const o = r.observation;
  return {
    caseId: o.caseId,
    workflowId: o.workflowId,
    passed: r.checks.passed,
    status: o.status,
    expectedStatus: r.evalCase.expected_terminal_status,
    failures: r.checks.failures,
    visitedNodes: [
      ...o.completedSteps,
      ...(o.currentNode && !o.completedSteps.includes(o.currentNode) ? [o.currentNode] : []),
    ],
    tools: o.invocations.map((i) => `${i.tool}:${i.status}`),
    refunds: o.refunds.length,
    durationMs: o.durationMs,
    ...(r.failureSample ? { failureSample: r.failureSample } : {}),
  };
}

const pct = (r: Rate): string =>
  r.value === null ? 'n/a' : `${(r.value * 100).toFixed(1)}% (${r.numerator}/${r.denominator})`;
const num = (v: number | null, digits = 2): string => (v === null ? 'n/a' : v.toFixed(digits));

/** The Markdown report: metrics table, then one row per case, then the failures. */
export function renderMarkdown(report: EvalReport): string {
  const m = report.metrics;
  const rows: [string, string][] = [
    ['Task success rate', pct(m.taskSuccess)],
    ['Verified outcome rate', pct(m.verifiedOutcome)],
    ['Correct route rate', pct(m.correctRoute)],
    ['Required fact recall', pct(m.requiredFactRecall)],
    ['Tool selection accuracy', pct(m.toolSelectionAccuracy)],
    ['Tool argument accuracy', pct(m.toolArgumentAccuracy)],
    ['Policy violation rate', pct(m.policyViolationRate)],
    ['Human handoff precision', pct(m.humanHandoffPrecision)],
    ['Human handoff recall', pct(m.humanHandoffRecall)],
    ['Steps per successful run', num(m.perSuccessfulRun.steps)],
    ['Model calls per successful run', num(m.perSuccessfulRun.modelCalls)],
    ['Tool calls per successful run', num(m.perSuccessfulRun.toolCalls)],
    ['Tokens per successful run', num(m.perSuccessfulRun.tokens, 1)],
    ['Cost (USD) per successful run', num(m.perSuccessfulRun.costUsd, 6)],
    ['No-progress loop rate', pct(m.noProgressLoopRate)],
    ['Duplicate side-effect rate', pct(m.duplicateSideEffectRate)],
    ['Unknown outcome reconciliation rate', pct(m.unknownOutcomeReconciliationRate)],
    [
      'Run duration p50 / p95 / p99 (ms)',
      `${num(m.runDurationMs.p50, 0)} / ${num(m.runDurationMs.p95, 0)} / ${num(m.runDurationMs.p99, 0)}`,
    ],
    ['Trace completeness', pct(m.traceCompleteness)],
    ['Runs that could not be driven', String(m.runErrors)],
  ];
  const lines = [
    `# Evaluation report`,
    '',
    `Cases: ${report.casesDir} (${m.cases}); policy override: ${report.policyOverride ?? 'none'}; started ${report.startedAt}; took ${(report.durationMs / 1000).toFixed(1)} s with concurrency ${report.concurrency}.`,
    '',
    '| Metric | Value |',
    '|---|---|',
    ...rows.map(([k, v]) => `| ${k} | ${v} |`),
    '',
    '## Seed metrics',
    '',
    renderSeedMetricsTable(report.seedMetrics),
    '',
    ...(report.seedMetricsByArm ?? []).flatMap((a) => [
      `### Rollout ${a.rollout}, arm ${a.arm} (${a.cases} cases)`,
      '',
      renderSeedMetricsTable(a.metrics),
      '',
    ]),
    '## Cases',
    '',
    '| Case | Result | Status (expected) | Nodes | Tools | Refunds | ms |',
    '|---|---|---|---|---|---|---|',
    ...report.cases.map(
      (c) =>
        `| ${c.caseId} | ${c.passed ? 'pass' : '**FAIL**'} | ${c.status} (${c.expectedStatus}) | ${c.visitedNodes.join(' → ')} | ${c.tools.join(', ')} | ${c.refunds} | ${c.durationMs} |`,
    ),
  ];
  const failed = report.cases.filter((c) => !c.passed);
  if (failed.length) {
    lines.push('', '## Failures', '');
    for (const c of failed) {
      lines.push(
        `- **${c.caseId}** (${c.workflowId}): ${c.failures.join('; ')}${c.failureSample ? ` — sample: ${c.failureSample}` : ''}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
