import { describe, expect, it } from 'vitest';
import { planRequest } from '../../../../src/activities/context/plan-request.js';
import type { TranscriptGroup } from '../../../../src/activities/context/request-package.js';
import { contextMetricsOfRun, stepsOfEvents } from '../../../../src/activities/context/run-metrics.js';
import type { ContextPackage } from '../../../../src/activities/context/types.js';
import type { ModelMessageInput } from '../../../../src/workflows/runner/ports.js';

const RUN = 'run-metrics';
const NOW = '2026-12-02T12:00:00.000Z';

/** The packages of a run of `turns` calls of order.read, each result `resultChars` long. */
function packages(turns: number, window: number): ContextPackage[] {
  const first: ModelMessageInput[] = [
    { role: 'system', content: 'Answer refund questions.', trust: 'system' },
    { role: 'user', content: 'Where is my order?', trust: 'untrusted' },
  ];
  const groups: TranscriptGroup[] = [];
  const out: ContextPackage[] = [];
  for (let k = 1; k <= turns + 1; k++) {
    const input: ModelMessageInput[] =
      k === 1
        ? first
        : [{ role: 'tool', toolCallId: `c${k - 1}`, content: `order ${k}: ${'x '.repeat(800)}` }];
    const plan = planRequest({
      runId: RUN,
      callSeq: k,
      groups,
      newMessages: input,
      budget: { contextWindow: window, outputReserve: 500, requestOverhead: 0, tokenizer: 'o200k_base' },
      route: 'r@v1',
      now: NOW,
      policyVersion: 'context/v2',
      summaries: new Map(),
    });
    out.push(plan.pkg);
    groups.push({
      seq: k,
      input,
      output: { text: '', toolCalls: [{ id: `c${k}`, name: 'order.read', version: 'v1', args: { k } }] },
    });
  }
  return out;
}

const completed = (tools: number, tokens = 10) => ({
  type: 'model.completed',
  data: {
    usage: { inputTokens: tokens - 1, outputTokens: 1 },
    toolCalls: Array<string>(tools).fill('order.read@v1'),
  },
});

describe('contextMetricsOfRun', () => {
  it('computes the seed 004 context metrics of a run from its packages and events', () => {
    const pkgs = packages(12, 6_000);
    const events = [
      completed(1),
      { type: 'tool.completed', data: { status: 'succeeded' } },
      completed(1),
      { type: 'tool.failed', data: { status: 'rejected' } },
      completed(0),
      { type: 'run.completed', data: {} },
    ];
    const m = contextMetricsOfRun({
      runId: RUN,
      packages: [...pkgs, { not: 'a package' }],
      events,
      labels: { requiredFacts: ['order.read'], relevantFacts: ['order.read'] },
    });
    expect(m.packages).toBe(13);
    expect(m.staleRate).toBe(0);
    expect(m.unauthorizedRate).toBe(0);
    expect(m.separationPassRate).toBe(1);
    expect(m.packagesOverWindow).toBeGreaterThan(0);
    // The first call saw no order.read result; every later one did.
    expect(m.requiredFactRecall).toBeCloseTo(12 / 13, 10);
    expect(m.precision).toBeGreaterThan(0);
    expect(m.precision).toBeLessThan(1);
    expect(m.utilization).toBeGreaterThan(0);
    expect(m.utilization).toBeLessThanOrEqual(1);
    expect(m.toolOutputsFlagged).toBe(0);
    // 30 tokens over 2 successful steps (the rejected tool call's step failed).
    expect(m.tokensPerSuccessfulStep).toBe(15);
    // Without labels: each call saw its instructions, task and the results it answers.
    expect(contextMetricsOfRun({ runId: RUN, packages: pkgs, events: [] })).toMatchObject({
      precision: null,
      requiredFactRecall: 1,
      tokensPerSuccessfulStep: null,
    });
  });

  it('catches a package whose data left its fence, an item of another run, and a stale item', () => {
    const [, second] = packages(1, 100_000);
    const leaked: ContextPackage = {
      ...second!,
      items: second!.items.map((i) => (i.kind === 'tool_fact' ? { ...i, trust: 'system' as const } : i)),
    };
    const foreign: ContextPackage = {
      ...second!,
      items: [...second!.items, { ...second!.items[1]!, itemId: 'x', sourceRef: 'message://other-run/1/1' }],
    };
    const stale: ContextPackage = {
      ...second!,
      items: [...second!.items, { ...second!.items[1]!, itemId: 'y', expiresAt: '2026-01-01T00:00:00Z' }],
    };
    const m = contextMetricsOfRun({ runId: RUN, packages: [leaked, foreign, stale], events: [] });
    expect(m.separationPassRate).toBeCloseTo(2 / 3, 10);
    expect(m.separationViolations[0]!.violations.join(' ')).toContain('(tool_fact) has trust system');
    expect(m.unauthorizedRate).toBeGreaterThan(0);
    expect(m.staleRate).toBeGreaterThan(0);
  });

  it('counts a final answer step as successful only when the run completed', () => {
    expect(stepsOfEvents([completed(0), { type: 'run.failed', data: {} }])).toEqual([
      { tokens: 10, succeeded: false },
    ]);
    expect(stepsOfEvents([completed(0), { type: 'run.completed', data: {} }])).toEqual([
      { tokens: 10, succeeded: true },
    ]);
  });
});
