import { hostname } from 'node:os';
import { decide } from '../support/decisions.js';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForState } from '../support/harness.js';
import { killAllWorkerProcesses } from '../support/worker-process.js';
import { createFaultRig, resultOf, waitForPause, type FaultRig } from './fault-rig.js';
import { historyOf, workflowTaskWorkers } from '../support/history.js';

/**
 * Scenario 4 (worker lost while the run waits) and the interrupted read: real worker processes,
 * killed with SIGKILL, and a second process that takes over.
 */
describe('faults: the only worker dies', { timeout: 240_000 }, () => {
  let rig: FaultRig;
  const handles: WorkflowHandle[] = [];
  beforeAll(async () => {
    rig = await createFaultRig('worker-loss');
  });
  afterAll(async () => {
    await killAllWorkerProcesses();
    for (const h of handles) await h.terminate('test cleanup').catch(() => undefined);
    await rig?.close();
  });

  it('a run waiting for approval survives its worker; a new worker process finishes it after the approve signal', async () => {
    const first = await rig.worker();
    const handle = await rig.start({
      task: { message: 'Please refund ORD-1001, it never shipped', customerId: 'C1001' },
    });
    handles.push(handle);
    const waiting = await waitForPause(handle, 'awaiting_confirmation');
    await first.kill();

    const second = await rig.worker();
    await decide(handle, 'approve', {}, waiting);
    const result = await resultOf(handle);
    expect(result.status).toBe('succeeded');
    expect(result.output.outcome).toBe('refunded');

    const rows = rig.refundRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      order_id: 'ORD-1001',
      amount_cents: 12900,
      idempotency_key: `${handle.workflowId}/4`,
      status: 'succeeded',
    });
    const workers = workflowTaskWorkers(await historyOf(handle));
    expect(workers[0]).toBe(`${hostname()}:${first.pid}`);
    const takeover = workers.indexOf(`${hostname()}:${second.pid}`);
    expect(takeover).toBeGreaterThan(0);
    expect(workers.slice(takeover)).toEqual([`${hostname()}:${second.pid}`]);
    await second.kill();
  });

  it('a read interrupted by a dead worker is retried by Temporal on another worker: one invocation, two intents', async () => {
    const slow = await rig.worker({ env: { HARNESS_REFUND_STORE_LATENCY_MS: 'readOrder=120000' } });
    const handle = await rig.start({
      task: { message: 'refund ORD-1001', customerId: 'C1001' },
      activityTimeouts: { readHeartbeatSeconds: 2 },
    });
    handles.push(handle);
    await waitForState(
      handle,
      (v) => v.invocations.some((i) => i.tool === 'order.read' && i.status === 'pending'),
      60_000,
    );
    // The intent is durable before the executor runs; wait for it, then kill the worker mid-read.
    await expect
      .poll(
        async () => (await rig.composition.store.getInvocation(handle.workflowId, 1))?.intents.length ?? 0,
        { timeout: 30_000 },
      )
      .toBe(1);
    await slow.kill();

    const healthy = await rig.worker();
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation', 90_000);
    const read = waiting.invocations.filter((i) => i.tool === 'order.read');
    expect(read).toEqual([expect.objectContaining({ seq: 1, status: 'succeeded' })]);
    const record = await rig.composition.store.getInvocation(handle.workflowId, 1);
    // Two attempts ran: the first on the killed process, the retry on the healthy one. (The retry is
    // usually attempt 2; it is 3 when the server handed attempt 2 to a poll the killed process left open.)
    const intents = record?.intents ?? [];
    expect(intents.map((i) => i.workerIdentity)).toEqual([
      `${hostname()}:${slow.pid}`,
      `${hostname()}:${healthy.pid}`,
    ]);
    expect(intents[0]?.attempt).toBe(1);
    expect(intents[1]?.attempt).toBeGreaterThan(1);
    expect(record?.result).toMatchObject({ status: 'succeeded', attempt: intents[1]?.attempt });
    const history = await historyOf(handle);
    expect(
      history.filter((e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' && e.activityType === 'runToolV3')
        .length,
    ).toBe(3);

    await decide(handle, 'reject', { reason: 'not needed any more' }, waiting);
    expect((await resultOf(handle)).output.outcome).toBe('declined_by_user');
    expect(
      rig.refundRows().filter((r) => r.idempotency_key.startsWith(`${handle.workflowId}/`)),
    ).toHaveLength(0);
    await healthy.kill();
  });
});
