import { hostname } from 'node:os';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchBudget } from '../../bench/lib/arms.js';
import { BENCH_TASK_MESSAGE } from '../../apps/bench/bench-script.js';
import { killAllWorkerProcesses } from '../support/worker-process.js';
import { historyOf, workflowTaskWorkers } from '../support/history.js';
import { localActivityMarkers } from '../support/local-activity-markers.js';
import { createFaultRig, resultOf, type FaultRig } from './fault-rig.js';

const DRILL = { HARNESS_TEST_TOOLS: 'fast-drill' };

/**
 * A worker killed (SIGKILL) during a fast read (a local activity, docs/runner.md "Fast path"): the
 * workflow task it held times out, another worker replays the run and runs the read again; the read
 * is recorded once as a completed call, and never became an activity task.
 */
describe('faults: a worker dies during a fast read', { timeout: 180_000 }, () => {
  let rig: FaultRig;
  const handles: WorkflowHandle[] = [];
  beforeAll(async () => {
    rig = await createFaultRig('fast-read-loss');
  });
  afterAll(async () => {
    await killAllWorkerProcesses();
    for (const h of handles) await h.terminate('test cleanup').catch(() => undefined);
    await rig?.close();
  });

  it('the read runs again on another worker and is recorded once as a completed call', async () => {
    const first = await rig.worker({ env: DRILL });
    const handle = await rig.start({
      profile: { name: 'bench.fast_steps', version: 'v1' },
      modelRoute: 'scripted/fast-drill-kill',
      task: { message: BENCH_TASK_MESSAGE },
      budget: benchBudget(1),
    });
    handles.push(handle);
    // The read's intent is durable before its executor sleeps (6 s): kill the worker mid-read.
    await expect
      .poll(
        async () => (await rig.composition.store.getInvocation(handle.workflowId, 1))?.intents.length ?? 0,
        { timeout: 60_000, interval: 100 },
      )
      .toBe(1);
    await first.kill();

    const second = await rig.worker({ env: DRILL });
    const result = await resultOf(handle);
    expect(result).toMatchObject({ status: 'succeeded', output: 'done' });

    const record = await rig.composition.store.getInvocation(handle.workflowId, 1);
    // Two tries, one per worker; one result, the second's.
    expect(record?.intents.map((i) => [i.attempt, i.workerIdentity])).toEqual([
      [1, `${hostname()}:${first.pid}`],
      [2, `${hostname()}:${second.pid}`],
    ]);
    expect(record?.results.map((r) => [r.attempt, r.status])).toEqual([[2, 'succeeded']]);
    const events = await rig.composition.store.listEvents(handle.workflowId);
    expect(events.filter((e) => e.type === 'tool.completed').map((e) => e.data['seq'])).toEqual([1]);

    const history = await historyOf(handle);
    expect(history.some((e) => e.type === 'EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT')).toBe(true);
    expect(
      history.filter(
        (e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' && e.activityType?.startsWith('runTool'),
      ),
    ).toEqual([]);
    const tools = (await localActivityMarkers(handle)).filter((m) => m.activityType.startsWith('runTool'));
    expect(tools).toEqual([
      { activityType: expect.stringMatching(/^runTool/) as string, attempt: 1, failed: false },
    ]);
    const workers = workflowTaskWorkers(history);
    expect(workers).toContain(`${hostname()}:${second.pid}`);
    await second.kill();
  });
});
