import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCH_TASK_MESSAGE, benchRoute, benchScripts } from '../../apps/bench/bench-script.js';
import { benchBudget } from '../../bench/lib/arms.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { CarriedRun } from '../../src/workflows/temporal/carried-run.js';
import { CARRY_BOUNDS } from '../../src/workflows/runner/carried-bounds.js';
import type { RunState } from '../../src/workflows/runner/run-state.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';

/** Enough steps for every per-step list to pass its bound, in generations of about 20 steps. */
const STEPS = 330;

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;

/** The second argument a generation started with (the state the previous one carried), and its size. */
function carriedInput(history: History): { carried?: CarriedRun; bytes: number } {
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[1];
  if (!payload?.data) return { bytes: 0 };
  const carried = JSON.parse(Buffer.from(payload.data).toString('utf8')) as CarriedRun;
  return { carried, bytes: payload.data.length };
}

function patchesOf(history: History): string[] {
  return (history.events ?? []).flatMap((e) => {
    const m = e.markerRecordedEventAttributes;
    const data = m?.markerName === 'core_patch' ? m.details?.['patch-data']?.payloads?.[0]?.data : undefined;
    return data ? [(JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id] : [];
  });
}

describe('a long run carries a bounded state through continue-as-new', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('carry', { scripts: benchScripts([STEPS]) });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('every generation starts from a carried state within the bounds, and the run still succeeds', async () => {
    const handle = await h.start({
      profile: { name: 'bench.steps', version: 'v1' },
      modelRoute: benchRoute(STEPS),
      task: { message: BENCH_TASK_MESSAGE },
      budget: benchBudget(STEPS),
      continueAsNewAfterEvents: 250,
    });
    const result = (await h.t.client.workflow.getHandle(handle.workflowId).result()) as AgentRunResult;
    expect(result).toMatchObject({ status: 'succeeded', output: 'done' });

    const generations: { history: History; started: number }[] = [];
    for await (const w of h.t.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) {
      const history = await h.t.client.workflow.getHandle(handle.workflowId, w.runId).fetchHistory();
      generations.push({ history, started: w.startTime.getTime() });
    }
    generations.sort((a, b) => a.started - b.started);
    expect(generations.length).toBeGreaterThanOrEqual(6);

    const inputs = generations.slice(1).map((g) => carriedInput(g.history));
    // Each generation's state is sealed by the one before it (carried-origin.ts), and taken.
    generations.slice(1).forEach((g, i) => {
      const started = g.history.events?.[0]?.workflowExecutionStartedEventAttributes;
      const origin = inputs[i]!.carried!.origin;
      expect(origin?.runId).toBe(started?.continuedExecutionRunId);
      expect(origin?.firstExecutionRunId).toBe(started?.firstExecutionRunId);
      expect(origin?.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    });
    for (const { carried } of inputs) {
      const state = carried!.state as RunState;
      expect(state.invocations.length).toBeLessThanOrEqual(CARRY_BOUNDS.invocations);
      expect(state.completedSteps.length).toBeLessThanOrEqual(CARRY_BOUNDS.completedSteps);
      expect(state.artifacts.length).toBeLessThanOrEqual(CARRY_BOUNDS.artifacts);
      expect(Object.keys(state.budget.callDigests).length).toBeLessThanOrEqual(CARRY_BOUNDS.callDigests);
      // The newest invocations, ending at the last call made.
      expect(state.invocations.at(-1)?.seq).toBe(state.budget.toolCalls);
    }
    const last = inputs.at(-1)!.carried!.state as RunState;
    expect(last.budget.toolCalls).toBeGreaterThan(CARRY_BOUNDS.callDigests);
    expect(last.invocations).toHaveLength(CARRY_BOUNDS.invocations);
    expect(Object.keys(last.budget.callDigests)).toHaveLength(CARRY_BOUNDS.callDigests);
    // Unbounded, the state would carry ~280 bytes more per step (BENCHMARKS.md).
    expect(Math.max(...inputs.map((i) => i.bytes))).toBeLessThan(64 * 1024);

    // The bounded carry is on through the baseline, and every generation is a marker-free start (the
    // memo goes with continue-as-new): no marker at all.
    for (const g of generations) expect(patchesOf(g.history)).toEqual([]);

    const view = await h.t.client.workflow.getHandle(handle.workflowId).query<RunView>('state');
    expect(view.budget.toolCalls).toBe(STEPS);

    // HARNESS_RECORD_HISTORIES=<dir> keeps the first generation (it continues as new with the patch)
    // and the last (it starts from a bounded state and completes) as replay fixtures.
    const dir = process.env.HARNESS_RECORD_HISTORIES;
    if (dir) {
      const chosen = {
        'bench-steps-baseline3-carry-first-v1': generations[0]!.history,
        'bench-steps-baseline3-carry-last-v1': generations.at(-1)!.history,
      };
      for (const [name, history] of Object.entries(chosen))
        writeFileSync(
          join(dir, `${name}.json`),
          `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 1)}\n`,
        );
    }
  }, 240_000);
});
