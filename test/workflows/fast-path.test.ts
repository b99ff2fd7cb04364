import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { benchBudget } from '../../bench/lib/arms.js';
import { BENCH_TASK_MESSAGE, benchRoute, benchScripts } from '../../apps/bench/bench-script.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { historyOf } from '../support/history.js';
import { localActivityMarkers } from '../support/local-activity-markers.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { FAST_DRILL_SCRIPTS, registerFastDrillTools } from '../support/fast-drill-tools.js';

const STEPS = 2;

/** Replay the run's history against this build (its local-activity markers included). */
async function replays(handle: WorkflowHandle): Promise<void> {
  await Worker.runReplayHistory(
    { workflowBundle: { codePath: inject('workflowBundlePath') } },
    await handle.fetchHistory(),
    handle.workflowId,
  );
}
const TOOL_ACTIVITIES = ['runTool', 'runToolV2', 'runToolV3'];

/**
 * The fast path (agent-run-fast-path-v1, docs/runner.md "Fast path"): a read declared `fast` that its
 * policy allowed without asking runs as a local activity in the workflow task that decided it; one
 * that exceeds its fast timeout falls back to the regular read activity.
 */
describe('fast reads run as local activities (real server)', { timeout: 120_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('fast-path', {
      scripts: { ...benchScripts([STEPS]), ...FAST_DRILL_SCRIPTS },
      extend: [(registry) => registerFastDrillTools(registry)],
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('each fast read is a local-activity marker, never an activity task, recorded once with its events', async () => {
    const handle = await h.start({
      profile: { name: 'bench.fast_steps', version: 'v1' },
      modelRoute: benchRoute(STEPS, true),
      task: { message: BENCH_TASK_MESSAGE },
      budget: benchBudget(STEPS),
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result).toMatchObject({ status: 'succeeded', output: 'done' });

    const history = await historyOf(handle);
    const scheduled = history.filter((e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
    expect(scheduled.filter((e) => TOOL_ACTIVITIES.includes(e.activityType ?? ''))).toEqual([]);
    // The model calls stay regular activities.
    expect(scheduled.filter((e) => e.activityType?.startsWith('callModel'))).toHaveLength(STEPS + 1);
    const tools = (await localActivityMarkers(handle)).filter((m) =>
      TOOL_ACTIVITIES.includes(m.activityType),
    );
    expect(tools).toEqual([
      { activityType: expect.stringMatching(/^runTool/) as string, attempt: 1, failed: false },
      { activityType: expect.stringMatching(/^runTool/) as string, attempt: 1, failed: false },
    ]);

    const view = await handle.query<RunView>('state');
    expect(view.invocations.map((i) => [i.seq, i.tool, i.status])).toEqual([
      [1, 'bench.fast_noop', 'succeeded'],
      [2, 'bench.fast_noop', 'succeeded'],
    ]);
    for (const seq of [1, 2]) {
      const record = await h.composition.store.getInvocation(handle.workflowId, seq);
      expect(record?.intents).toHaveLength(1);
      expect(record?.results).toHaveLength(1);
      expect(record?.result).toMatchObject({ status: 'succeeded', output: { next: seq } });
    }
    const events = await h.composition.store.listEvents(handle.workflowId);
    const types = (t: string) => events.filter((e) => e.type === t).map((e) => e.data['seq']);
    expect(types('tool.authorized')).toEqual([1, 2]);
    expect(types('tool.completed')).toEqual([1, 2]);
    await replays(handle);
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'bench-fast-path-v1');
  });

  it('a fast read over its fast timeout falls back to the regular read activity and completes once', async () => {
    const handle = await h.start({
      profile: { name: 'bench.fast_steps', version: 'v1' },
      modelRoute: 'scripted/fast-drill-timeout',
      task: { message: BENCH_TASK_MESSAGE },
      budget: benchBudget(1),
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result).toMatchObject({ status: 'succeeded', output: 'done' });

    const tools = (await localActivityMarkers(handle)).filter((m) =>
      TOOL_ACTIVITIES.includes(m.activityType),
    );
    expect(tools).toEqual([
      { activityType: expect.stringMatching(/^runTool/) as string, attempt: 1, failed: true },
    ]);
    const history = await historyOf(handle);
    const scheduled = history.filter(
      (e) =>
        e.type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' && TOOL_ACTIVITIES.includes(e.activityType ?? ''),
    );
    expect(scheduled).toHaveLength(1);

    const view = await handle.query<RunView>('state');
    expect(view.invocations.map((i) => [i.seq, i.tool, i.version, i.status])).toEqual([
      [1, 'bench.fast_noop', 'v3', 'succeeded'],
    ]);
    const record = await h.composition.store.getInvocation(handle.workflowId, 1);
    // The timed-out try's intent (attempt 1) stays; the fallback is attempt 2 and the only result.
    expect(record?.intents.map((i) => i.attempt)).toEqual([1, 2]);
    expect(record?.results.map((r) => [r.attempt, r.status])).toEqual([[2, 'succeeded']]);
    const completed = (await h.composition.store.listEvents(handle.workflowId)).filter(
      (e) => e.type === 'tool.completed',
    );
    expect(completed).toHaveLength(1);
    // The fallback replays: the failed try's marker leads to the same activity command.
    await replays(handle);
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'bench-fast-path-fallback-v1');
  });
});
