import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { seedDemoOrder } from '../../apps/refund/demo-order.js';
import { decide } from '../support/decisions.js';
import { waitForState } from '../support/harness.js';
import { killAllWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';
import { createFaultRig, resultOf, type FaultRig } from './fault-rig.js';

/** Busy-wait (synchronously: no tick is lost) until the run's `run.completed` event is stored. */
function waitForStoredCompletion(path: string, runId: string, timeoutMs: number): boolean {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const stmt = db.prepare("SELECT 1 FROM events WHERE run_id = ? AND type = 'run.completed'");
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) if (stmt.get(runId) !== undefined) return true;
    return false;
  } finally {
    db.close();
  }
}

/**
 * The soak's wedged run (docs/durability.md, "Soak"): the worker stops right after the run's last
 * event flush (a local activity) committed and before its workflow task completed. Another worker
 * retries the task and runs the flush again, with a later workflow clock: the stored events stand and
 * the run completes.
 */
describe('faults: the worker stops after the last event flush', { timeout: 600_000 }, () => {
  let rig: FaultRig;
  const handles: WorkflowHandle[] = [];
  afterAll(async () => {
    await killAllWorkerProcesses();
    for (const h of handles) await h.terminate('test cleanup').catch(() => undefined);
    await rig?.close();
  });

  it('the retried workflow task stores nothing twice and the run completes', async () => {
    rig = await createFaultRig('last-flush');
    let stopped: { handle: WorkflowHandle; worker: WorkerProcess } | undefined;
    // The window between the flush's commit and the task's completion is milliseconds wide: try a few runs.
    for (let trial = 0; trial < 8 && stopped === undefined; trial++) {
      const worker = await rig.worker();
      const { orderId, customerId } = seedDemoOrder(
        rig.composition.refundStore,
        new Date(Date.now() - trial),
      );
      const handle = await rig.start({ task: { message: `refund ${orderId} please`, customerId } });
      handles.push(handle);
      const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation', 60_000);
      await decide(handle, 'approve', {}, waiting);
      expect(waitForStoredCompletion(join(rig.dir, 'evidence.db'), handle.workflowId, 60_000)).toBe(true);
      process.kill(worker.pid, 'SIGSTOP');
      await new Promise((r) => setTimeout(r, 500));
      if ((await handle.describe()).status.name === 'RUNNING') stopped = { handle, worker };
      else await worker.kill();
    }
    expect(stopped, 'no trial stopped the worker inside the window').toBeDefined();
    const { handle, worker } = stopped!;
    const second = await rig.worker();
    const result = await Promise.race([
      resultOf(handle),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('the run did not complete within 120 s of the takeover')), 120_000),
      ),
    ]);
    expect(result.status).toBe('succeeded');
    expect(result.output.outcome).toBe('refunded');
    const events = await rig.composition.store.listEvents(handle.workflowId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'run.completed')).toHaveLength(1);
    expect(second.output()).not.toMatch(/already exists with different content/);
    await worker.kill();
    await second.kill();
  });
});
