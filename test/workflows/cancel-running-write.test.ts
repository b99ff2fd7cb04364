import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide } from '../support/decisions.js';
import { openRefundStore } from '../../apps/refund/business/refund-store.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import {
  createHarnessFixture,
  historyEventTypes,
  waitForState,
  type HarnessFixture,
} from '../support/harness.js';

/**
 * Cancellation reaches a running tool: refund.create sleeps (injected store latency, heartbeating)
 * before writing; cancelRun arrives while it runs; the executor sees the abort through its heartbeat,
 * the workflow waits for it (writes use WAIT_CANCELLATION_COMPLETED) and settles the invocation.
 */
describe('cancelRun while a write tool is running', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('cancel-write', {
      env: { HARNESS_REFUND_STORE_LATENCY_MS: 'createRefund=60000' },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('aborts the executor, writes nothing, settles the invocation and ends cancelled', async () => {
    const handle = await h.start({
      task: { message: 'refund ORD-1001', customerId: 'C1001' },
      activityTimeouts: { writeHeartbeatSeconds: 5 },
    });
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    await decide(handle, 'approve', {}, waiting);
    await waitForState(handle, (v) =>
      v.invocations.some((i) => i.tool === 'refund.create' && i.status === 'pending'),
    );
    // The intent is durable before the executor runs.
    await expect
      .poll(async () => (await h.composition.store.getInvocation(handle.workflowId, 4))?.intents.length, {
        timeout: 10_000,
      })
      .toBe(1);
    await decide(handle, 'cancelRun', { reason: 'customer withdrew' }, undefined);

    const result = (await handle.result()) as { status: string; terminalReason: { code: string } };
    expect(result.status).toBe('cancelled');
    expect(result.terminalReason.code).toBe('run.cancelled');
    const types = await historyEventTypes(handle);
    expect(types).toContain('EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED');
    expect(types).toContain('EVENT_TYPE_ACTIVITY_TASK_CANCELED');
    const view = await handle.query<RunView>('state');
    const write = view.invocations.find((i) => i.tool === 'refund.create');
    expect(write?.status).toBe('not_applied');
    const store = openRefundStore(h.composition.refundStore.path);
    try {
      expect(await store.findRefundByKey(`${handle.workflowId}/4`)).toBeUndefined();
    } finally {
      store.close();
    }
  });
});
