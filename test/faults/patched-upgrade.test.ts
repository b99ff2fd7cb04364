import { writeFileSync } from 'node:fs';
import { decide } from '../support/decisions.js';
import { isAbsolute, join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/devserver/config.js';
import { testWorkflowsPath as workflowsPath } from '../support/workflows-path.js';
import { killAllWorkerProcesses } from '../support/worker-process.js';
import { createFaultRig, resultOf, waitForPause, type FaultRig } from './fault-rig.js';
import { historyOf, type HistoryEntry } from '../support/history.js';

/**
 * Where the run loaded its tool snapshot: its local-activity marker (runs since the local
 * bookkeeping) or the first scheduled activity (runs before it).
 */
function snapshotLoadIndex(history: readonly HistoryEntry[]): number {
  return history.findIndex(
    (e) =>
      e.type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' ||
      (e.type === 'EVENT_TYPE_MARKER_RECORDED' && e.markerName === 'core_local_activity'),
  );
}

/** Bundle a workflow entry (absolute, or a file of test/faults/fixtures) into `out`. */
async function bundle(entry: string, out: string): Promise<string> {
  const b = await bundleWorkflowCode({
    workflowsPath: isAbsolute(entry) ? entry : join(projectRoot, 'test', 'faults', 'fixtures', entry),
    logger: new DefaultLogger('WARN'),
  });
  writeFileSync(out, b.code);
  return out;
}

/**
 * Scenario 6: a run started on one build resumes on the next, whose change is behind `patched()`.
 * The "old build" is the bundle of src/workflows/workflow; the "new build" adds a timer at the start of
 * agentRun behind `patched('test-change')`; an unguarded copy of the change is the negative control.
 */
describe('faults: a waiting run resumes on a newer build', { timeout: 240_000 }, () => {
  let rig: FaultRig;
  let oldBundle: string;
  let patchedBundle: string;
  let unguardedBundle: string;
  const handles: WorkflowHandle[] = [];
  beforeAll(async () => {
    rig = await createFaultRig('upgrade');
    // All three bundles are built back to back from the same tree (the global one may be older).
    oldBundle = await bundle(workflowsPath, join(rig.dir, 'old-bundle.js'));
    patchedBundle = await bundle('patched-workflows.ts', join(rig.dir, 'patched-bundle.js'));
    unguardedBundle = await bundle('unguarded-workflows.ts', join(rig.dir, 'unguarded-bundle.js'));
  });
  afterAll(async () => {
    await killAllWorkerProcesses();
    for (const h of handles) await h.terminate('test cleanup').catch(() => undefined);
    await rig?.close();
  });

  it('old worker starts the run, it waits for approval, the new build finishes it; new runs take the patched path', async () => {
    const oldWorker = await rig.worker({ bundlePath: oldBundle });
    const handle = await rig.start({ task: { message: 'refund ORD-1001', customerId: 'C1001' } });
    handles.push(handle);
    const waiting = await waitForPause(handle, 'awaiting_confirmation');
    await oldWorker.kill();
    const oldHistory = (await handle.fetchHistory()).events ?? [];

    const newWorker = await rig.worker({ bundlePath: patchedBundle });
    await decide(handle, 'approve', {}, waiting);
    const result = await resultOf(handle);
    expect(result.status).toBe('succeeded');
    expect(result.output.outcome).toBe('refunded');
    expect(rig.refundRows()).toHaveLength(1);
    const history = await historyOf(handle);
    expect(history.some((e) => e.type === 'EVENT_TYPE_WORKFLOW_TASK_FAILED')).toBe(false);
    expect(history.some((e) => e.patchId === 'test-change')).toBe(false);
    // no new leading timer: agentRun's own timers (deadline, approval expiry) start after the tool snapshot is loaded
    const types = history.map((e) => e.type);
    expect(snapshotLoadIndex(history)).toBeGreaterThan(0);
    expect(types.indexOf('EVENT_TYPE_TIMER_STARTED')).toBeGreaterThan(snapshotLoadIndex(history));

    // A run started on the new build takes the new step: a patch marker and its timer come before anything else.
    const fresh = await rig.start({ task: { message: 'refund ORD-1001', customerId: 'C1001' } });
    handles.push(fresh);
    const freshWaiting = await waitForPause(fresh, 'awaiting_confirmation');
    await decide(fresh, 'reject', { reason: 'already refunded' }, freshWaiting);
    expect((await resultOf(fresh)).output.outcome).toBe('declined_by_user');
    const freshHistory = await historyOf(fresh);
    const freshTypes = freshHistory.map((e) => e.type);
    const marker = freshHistory.findIndex((e) => e.patchId === 'test-change');
    expect(marker).toBeGreaterThan(0);
    expect(marker).toBeLessThan(snapshotLoadIndex(freshHistory));
    expect(freshTypes.indexOf('EVENT_TYPE_TIMER_STARTED')).toBeLessThan(snapshotLoadIndex(freshHistory));
    await newWorker.kill();

    // Negative control: the same change without patched() cannot replay the run the old build started.
    await expect(
      Worker.runReplayHistory(
        { workflowBundle: { codePath: unguardedBundle }, replayName: 'unguarded' },
        { events: oldHistory },
        handle.workflowId,
      ),
    ).rejects.toMatchObject({ name: 'DeterminismViolationError' });
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: patchedBundle }, replayName: 'patched' },
      { events: oldHistory },
      handle.workflowId,
    );
  });
});
