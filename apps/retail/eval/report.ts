import type { ScenarioRun } from './scenario-driver.js';
import type { Refusal } from './scenario-checks.js';
import type { ExplainedRefusal } from './variants.js';

/** A rate with its numerator and denominator; `value` is null when the denominator is 0. */
export interface Rate {
  readonly value: number | null;
  readonly numerator: number;
  readonly denominator: number;
}

export function rate(numerator: number, denominator: number): Rate {
  return { value: denominator === 0 ? null : numerator / denominator, numerator, denominator };
}

/** One scenario in the report. */
export interface ScenarioSummary {
  readonly id: string;
  readonly taskId: string;
  readonly variant: string;
  readonly workflowId: string;
  readonly passed: boolean;
  readonly status: string;
  readonly terminalCode: string | null;
  readonly failures: readonly string[];
  readonly dbMatches: boolean;
  readonly tools: readonly string[];
  readonly goldActionsFound: number;
  readonly goldActions: number;
  readonly refusals: readonly Refusal[];
  readonly explainedRefusals: readonly ExplainedRefusal[];
  readonly codes: readonly string[];
  readonly routeCorrect: boolean | null;
  readonly stepsCompleted: number;
  readonly stepsPlanned: number;
  readonly replans: number;
  readonly confirmations: number;
  readonly durationMs: number;
}

/** Totals over the scenarios (gold measures over the gold scenarios only). */
export interface RetailTotals {
  readonly scenarios: number;
  readonly passRate: Rate;
  /** Pass rate per variant. */
  readonly byVariant: Readonly<Record<string, Rate>>;
  readonly toolCallAccuracy: Rate;
  /** Gold actions the policy or the pipeline refused (false refusals), with their codes. */
  readonly falseRefusals: readonly (Refusal & { readonly scenario: string })[];
  /** Gold actions the policy refuses by design, as the scenario expected, with why. */
  readonly explainedRefusals: readonly (ExplainedRefusal & { readonly scenario: string })[];
  readonly routeAccuracy: Rate;
  readonly planAdherence: Rate;
  readonly replans: number;
  readonly runErrors: number;
}

/** The JSON report of one retail evaluation. */
export interface RetailEvalReport {
  readonly schemaVersion: 1;
  readonly tasksFile: string;
  readonly variants: readonly string[];
  readonly startedAt: string;
  readonly durationMs: number;
  readonly concurrency: number;
  readonly totals: RetailTotals;
  readonly scenarios: readonly ScenarioSummary[];
  /** What the evaluation does not do yet. */
  readonly todo: readonly string[];
}

export function summarizeScenario(r: ScenarioRun): ScenarioSummary {
  const o = r.observation;
  const c = r.checks;
  return {
    id: r.scenario.id,
    taskId: r.scenario.taskId,
    variant: r.scenario.variant,
    workflowId: o.workflowId,
    passed: c.passed,
    status: o.status,
    terminalCode: o.terminalCode,
    failures: c.failures,
    dbMatches: c.dbMatches,
    tools: o.calls.map((t) => `${t.name}:${t.status}`),
    goldActionsFound: c.goldActionsFound,
    goldActions: c.goldActions,
    refusals: c.refusals,
    explainedRefusals: c.explainedRefusals,
    codes: c.codes,
    routeCorrect: c.routeCorrect,
    stepsCompleted: c.stepsCompleted,
    stepsPlanned: c.stepsPlanned,
    replans: c.replans,
    confirmations: o.confirmations,
    durationMs: o.durationMs,
  };
}

/** The totals of a set of scenario summaries. Pure. */
export function computeTotals(scenarios: readonly ScenarioSummary[]): RetailTotals {
  const gold = scenarios.filter((s) => s.variant === 'gold');
  const sum = (xs: readonly ScenarioSummary[], f: (s: ScenarioSummary) => number): number =>
    xs.reduce((a, s) => a + f(s), 0);
  const byVariant: Record<string, Rate> = {};
  for (const v of [...new Set(scenarios.map((s) => s.variant))]) {
    const of = scenarios.filter((s) => s.variant === v);
    byVariant[v] = rate(of.filter((s) => s.passed).length, of.length);
  }
  return {
    scenarios: scenarios.length,
    passRate: rate(scenarios.filter((s) => s.passed).length, scenarios.length),
    byVariant,
    toolCallAccuracy: rate(
      sum(gold, (s) => s.goldActionsFound),
      sum(gold, (s) => s.goldActions),
    ),
    falseRefusals: gold.flatMap((s) => s.refusals.map((r) => ({ scenario: s.id, ...r }))),
    explainedRefusals: gold.flatMap((s) => s.explainedRefusals.map((r) => ({ scenario: s.id, ...r }))),
    routeAccuracy: rate(gold.filter((s) => s.routeCorrect === true).length, gold.length),
    planAdherence: rate(
      sum(gold, (s) => s.stepsCompleted),
      sum(gold, (s) => s.stepsPlanned),
    ),
    replans: sum(scenarios, (s) => s.replans),
    runErrors: scenarios.filter((s) => s.status === 'error').length,
  };
}

const pct = (r: Rate): string =>
  r.value === null ? 'n/a' : `${(r.value * 100).toFixed(1)}% (${r.numerator}/${r.denominator})`;

/** The Markdown report: totals, one row per scenario, then the failures. */
export function renderMarkdown(report: RetailEvalReport): string {
  const t = report.totals;
  const lines = [
    '# Retail evaluation report',
    '',
    `Tasks: ${report.tasksFile}; variants: ${report.variants.join(', ')}; started ${report.startedAt}; took ${(report.durationMs / 1000).toFixed(1)} s with concurrency ${report.concurrency}.`,
    '',
    '| Measure | Value |',
    '|---|---|',
    `| Pass rate | ${pct(t.passRate)} |`,
    ...Object.entries(t.byVariant).map(([v, r]) => `| Pass rate, ${v} | ${pct(r)} |`),
    `| Tool-call accuracy (gold) | ${pct(t.toolCallAccuracy)} |`,
    `| False refusals of gold actions | ${t.falseRefusals.length} |`,
    `| Gold actions refused by design (explained below) | ${t.explainedRefusals.length} |`,
    `| Route accuracy (gold) | ${pct(t.routeAccuracy)} |`,
    `| Plan adherence (gold) | ${pct(t.planAdherence)} |`,
    `| Replans | ${t.replans} |`,
    `| Runs that could not be driven | ${t.runErrors} |`,
    '',
    '## Scenarios',
    '',
    '| Scenario | Result | Status | DB | Gold calls | Route | Steps | Tools | ms |',
    '|---|---|---|---|---|---|---|---|---|',
    ...report.scenarios.map(
      (s) =>
        `| ${s.id} | ${s.passed ? 'pass' : '**FAIL**'} | ${s.status}${s.terminalCode ? ` (${s.terminalCode})` : ''} | ${s.dbMatches ? 'equal' : 'differs'} | ${s.goldActions ? `${s.goldActionsFound}/${s.goldActions}` : '-'} | ${s.routeCorrect === null ? '-' : s.routeCorrect ? 'ok' : 'wrong'} | ${s.stepsCompleted}/${s.stepsPlanned} | ${s.tools.join(', ')} | ${s.durationMs} |`,
    ),
  ];
  if (t.falseRefusals.length > 0) {
    lines.push('', '## False refusals', '');
    for (const r of t.falseRefusals) lines.push(`- ${r.scenario}: ${r.tool} (${r.codes.join(', ')})`);
  }
  if (t.explainedRefusals.length > 0) {
    lines.push('', '## Gold actions refused by design', '');
    for (const r of t.explainedRefusals) lines.push(`- ${r.scenario}: ${r.tool} (${r.code}): ${r.why}`);
  }
  const failed = report.scenarios.filter((s) => !s.passed);
  if (failed.length > 0) {
    lines.push('', '## Failures', '');
    for (const s of failed) lines.push(`- **${s.id}** (${s.workflowId}): ${s.failures.join('; ')}`);
  }
  if (report.todo.length > 0) lines.push('', '## Not done yet', '', ...report.todo.map((x) => `- ${x}`));
  return `${lines.join('\n')}\n`;
}
