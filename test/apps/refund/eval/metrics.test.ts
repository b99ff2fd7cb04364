import { describe, expect, it } from 'vitest';
import { checkCase } from '../../../../apps/refund/eval/case-checks.js';
import { mapLimited } from '../../../../apps/refund/eval/concurrency.js';
import {
  computeMetrics,
  evalSeedMetrics,
  percentile,
  rate,
  type CaseRecord,
} from '../../../../apps/refund/eval/metrics.js';
import { renderMarkdown } from '../../../../apps/refund/eval/report.js';
import type { CaseObservation } from '../../../../apps/refund/eval/case-observation.js';
import { evalCase, observation } from './observation-fixture.js';

function record(o: Partial<CaseObservation>, caseOverrides: Record<string, unknown> = {}): CaseRecord {
  const obs = observation(o);
  return { observation: obs, checks: checkCase(evalCase(caseOverrides), obs) };
}

describe('metric helpers', () => {
  it('rate is n/a on an empty denominator', () => {
    expect(rate(0, 0)).toEqual({ value: null, numerator: 0, denominator: 0 });
    expect(rate(1, 4).value).toBe(0.25);
  });
  it('percentiles are nearest-rank', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 95)).toBe(95);
    expect(percentile(xs, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNull();
    expect(percentile([3, 1, 2], 50)).toBe(2);
  });
  it('mapLimited keeps order and never exceeds the limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapLimited([5, 1, 4, 2, 3], 2, async (x) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, x * 3));
      inFlight -= 1;
      return x * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(peak).toBe(2);
  });
});

describe('computeMetrics', () => {
  const good = record({});
  const wrongRoute = record({
    status: 'succeeded',
    completedSteps: ['identify_intent', 'create_compensation'],
    currentNode: 'compose_response',
    events: [],
    artifacts: [],
  });
  const refund = (id: string) => ({
    id,
    orderId: 'ORD-CASE-1',
    amountCents: 12_900,
    idempotencyKey: id,
    status: 'succeeded',
  });
  const duplicate = record(
    {
      status: 'succeeded',
      output: { outcome: 'refunded' },
      completedSteps: [
        'identify_intent',
        'query_order',
        'verify_order_ownership',
        'query_logistics',
        'retrieve_effective_policy',
        'decide_eligibility',
        'request_confirmation',
        'create_refund',
      ],
      refunds: [refund('a'), refund('b')],
      budget: { steps: 9, modelCalls: 1, toolCalls: 6, inputTokens: 40, outputTokens: 1, costUsd: 0.5 },
      durationMs: 3000,
      invocations: [
        {
          seq: 5,
          tool: 'refund.create',
          effect: 'write',
          status: 'succeeded',
          args: { orderId: 'ORD-CASE-1', amountCents: 12_900 },
          resolvedBy: 'evidence_store',
        },
      ],
    },
    { expected_terminal_status: 'succeeded' },
  );
  const looping = record(
    {
      status: 'budget_exhausted',
      terminalReason: { code: 'budget.no_progress', message: 'x' },
      events: [],
      durationMs: 9000,
    },
    { expected_terminal_status: 'succeeded' },
  );
  const m = computeMetrics([good, wrongRoute, duplicate, looping]);

  it('task success, route, and fact recall', () => {
    expect(m.cases).toBe(4);
    expect(m.taskSuccess).toMatchObject({ numerator: 1, denominator: 4 });
    expect(m.correctRoute).toMatchObject({ numerator: 3, denominator: 4 });
    // good: 3/3 facts, wrongRoute: 0/3, duplicate: 3/3 (artifacts and events kept), looping: 3/3 (artifacts kept)
    expect(m.requiredFactRecall).toMatchObject({ numerator: 9, denominator: 12 });
  });

  it('verified outcomes, duplicates, handoffs, reconciliation, loops', () => {
    // wrongRoute claims no refund and the store has none (verified); duplicate claims one and the store has two.
    expect(m.verifiedOutcome).toMatchObject({ numerator: 1, denominator: 2 });
    expect(m.duplicateSideEffectRate).toMatchObject({ numerator: 1, denominator: 1 });
    expect(m.humanHandoffRecall).toMatchObject({ numerator: 2, denominator: 4 });
    expect(m.humanHandoffPrecision).toMatchObject({ numerator: 2, denominator: 2 });
    expect(m.unknownOutcomeReconciliationRate).toMatchObject({ numerator: 1, denominator: 1 });
    expect(m.noProgressLoopRate).toMatchObject({ numerator: 1, denominator: 4 });
  });

  it('tool accuracy and per-success means count only what they should', () => {
    // three records make the three expected reads; the duplicate record's refund.create is not a tool of H-RF-017's nodes
    expect(m.toolSelectionAccuracy).toMatchObject({ numerator: 9, denominator: 10 });
    expect(m.toolArgumentAccuracy).toMatchObject({ numerator: 10, denominator: 10 });
    expect(m.perSuccessfulRun).toEqual({ steps: 4, modelCalls: 1, toolCalls: 3, tokens: 41, costUsd: 0 });
    expect(m.runDurationMs).toEqual({ p50: 1000, p95: 9000, p99: 9000 });
  });

  it('renders a Markdown report with every metric and the failures', () => {
    const md = renderMarkdown({
      schemaVersion: 1,
      casesDir: 'x',
      policyOverride: null,
      startedAt: 't',
      durationMs: 1,
      concurrency: 2,
      metrics: m,
      seedMetrics: evalSeedMetrics(m, [good, wrongRoute, duplicate, looping], []),
      cases: [],
    });
    for (const name of [
      'Task success rate',
      'Verified outcome rate',
      'Human handoff precision',
      'Duplicate side-effect rate',
      'p50 / p95 / p99',
    ])
      expect(md).toContain(name);
    expect(md).toContain('25.0% (1/4)');
    // Every seed metric has a row: a value, or why it has none.
    expect(md).toContain('| reliability | Run duration |');
    expect(md).toContain('| evidence | Failure reproduction rate | n/a (0/0) |');
    expect(md).toContain('| context | Context precision | not computable: ');
  });
});
