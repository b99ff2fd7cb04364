import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { decide } from '../support/decisions.js';
import { TEST_KEYS } from '../support/principals.js';
import { killAllWorkerProcesses } from '../support/worker-process.js';
import { createFaultRig, resultOf, waitForPause, type FaultRig } from './fault-rig.js';
import { historyOf } from '../support/history.js';

type Signal = readonly [name: 'approve' | 'cancelRun', fields: Record<string, unknown>];
const APPROVE: Signal = ['approve', {}];
const CANCEL: Signal = ['cancelRun', { reason: 'changed my mind' }];

/**
 * Scenario 5: approve and cancelRun for the same waiting run, in both orders. To make "in one go"
 * exact, no worker is polling while the two signals arrive: both are in history before the next
 * workflow task, so one activation sees them in the order they were sent.
 */
describe('faults: approval and cancellation race', { timeout: 240_000 }, () => {
  const rigs: FaultRig[] = [];
  const handles: WorkflowHandle[] = [];
  afterEach(async () => {
    await killAllWorkerProcesses();
  });
  afterAll(async () => {
    await killAllWorkerProcesses();
    for (const h of handles) await h.terminate('test cleanup').catch(() => undefined);
    for (const r of rigs) await r.close();
  });

  async function race(first: Signal, second: Signal): Promise<{ handle: WorkflowHandle; rig: FaultRig }> {
    const rig = await createFaultRig('race');
    rigs.push(rig);
    const worker = await rig.worker();
    const handle = await rig.start({ task: { message: 'refund ORD-1001', customerId: 'C1001' } });
    handles.push(handle);
    const waiting = await waitForPause(handle, 'awaiting_confirmation');
    await worker.kill();
    await decide(handle, first[0], first[1], waiting);
    await decide(handle, second[0], second[1], waiting);
    await rig.worker();
    return { handle, rig };
  }

  async function expectCancelledWithoutRefund(handle: WorkflowHandle, rig: FaultRig): Promise<string[]> {
    const result = await resultOf(handle);
    expect(result.status).toBe('cancelled');
    expect(result.terminalReason).toMatchObject({
      code: 'run.cancelled',
      message: `cancelled by ${TEST_KEYS.ops.principal}: changed my mind`,
    });
    const view = await handle.query<RunView>('state');
    expect(view.invocations.map((i) => i.tool)).toEqual([
      'order.read',
      'logistics.read',
      'policy.search.refund',
    ]);
    expect(view.pendingAction).toBeNull();
    expect(rig.refundRows()).toHaveLength(0);
    const history = await historyOf(handle);
    const signals = history.filter((e) => e.type === 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED');
    expect(signals).toHaveLength(2);
    const events = await rig.composition.store.listEvents(handle.workflowId);
    expect(events.some((e) => e.type === 'run.cancelled')).toBe(true);
    return events
      .filter((e) => e.type === 'human.signal_rejected')
      .map((e) => (e.data as { code: string }).code);
  }

  it('approve then cancelRun in one go: the run is cancelled and nothing is refunded', async () => {
    const { handle, rig } = await race(APPROVE, CANCEL);
    expect(await expectCancelledWithoutRefund(handle, rig)).toEqual([]);
  });

  it('cancelRun then approve in one go: the run is cancelled and nothing is refunded', async () => {
    const { handle, rig } = await race(CANCEL, APPROVE);
    expect(await expectCancelledWithoutRefund(handle, rig)).toEqual([]);
  });
});
