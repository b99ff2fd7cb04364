import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { MAX_REFUSAL_EVENTS_PER_WAIT } from '../../src/workflows/runner/human-gate.js';
import { waitForPause } from '../faults/fault-rig.js';
import { decide } from '../support/decisions.js';
import {
  createHarnessFixture,
  historyEventTypes,
  waitForState,
  type HarnessFixture,
} from '../support/harness.js';

const FLOOD = 10_000;
const IN_FLIGHT = 64;
/**
 * Signals per wave. After each wave a `state` query waits until the run has taken every signal sent
 * so far (a query is answered after the workflow task that holds the buffered signals), so one
 * activation holds at most one wave. Unthrottled, the server can pile the whole flood into a single
 * workflow task (the sticky task is not started while the flood runs, then times out), and 10,000
 * signals in one activation cost the worker about 4 s of sandbox CPU (the SDK's promise hook takes a
 * stack trace per workflow promise) against its 5 s isolateExecutionTimeout: under CPU load the vm
 * timeout fires inside the microtask checkpoint, Node finds its async hook stack corrupted and aborts
 * the whole process (nodejs/node#38503, temporalio/sdk-typescript#939), and vitest reports that the
 * fork exited unexpectedly. 500 signals take about 0.2 s (2.2 s at most with two CPU burners beside a
 * loaded machine); the barriers cost time (30-70 s alone, up to about 260 s under that load).
 */
const WAVE = 500;

/** Signals per activation of the run, from its history event types (those between two workflow tasks). */
function signalsPerActivation(types: readonly string[]): number[] {
  const sizes: number[] = [];
  let pending = 0;
  for (const t of types) {
    if (t === 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED') pending += 1;
    else if (t === 'EVENT_TYPE_WORKFLOW_TASK_STARTED') {
      sizes.push(pending);
      pending = 0;
    }
  }
  return sizes;
}

/**
 * A flood of refused decisions: 10,000 unsigned approvals sent to one waiting run. Each costs one
 * history event (the signal) and nothing else: no activity, no growth of the run's state or of the next
 * activity's input beyond the bounded refusal record. The approved action still runs afterwards.
 */
describe('10,000 refused signals to one waiting run', { timeout: 600_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('refused-flood');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('leave it waiting, its history within the bound, and the approved action still runs', async () => {
    const handle = await h.start({ task: { message: 'refund ORD-1001 please', customerId: 'C1001' } });
    // A settled pause: the flush before it has completed, so everything after is the flood's.
    const waiting = await waitForPause(handle, 'awaiting_confirmation');
    const before = (await handle.fetchHistory()).events?.length ?? 0;
    const payload = { actionId: waiting.pendingAction!.actionId, actor: 'mallory@example.com' };
    const floodStart = Date.now();
    let sent = 0;
    for (let wave = 0; wave < FLOOD / WAVE; wave += 1) {
      const end = sent + WAVE;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (sent < end) {
            sent += 1;
            await handle.signal('approve', payload);
          }
        }),
      );
      await handle.query<RunView>('state');
    }
    const flooded = await waitForState(handle, (v) => v.signalRejections.length === 10, 120_000);
    expect(flooded.status).toBe('awaiting_confirmation');
    expect(flooded.pendingAction?.actionId).toBe(waiting.pendingAction!.actionId);
    expect(flooded.signalRejections.every((r) => r.code === 'decision.unsigned')).toBe(true);
    // The bound (docs/authorization.md): one event per refused signal, plus the workflow tasks that
    // took them in batches (three events each, far fewer tasks than signals); no activity at all.
    const afterFlood = await handle.fetchHistory();
    const types = await historyEventTypes(handle);
    const added = (afterFlood.events?.length ?? 0) - before;
    const signals = types.filter((t) => t === 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED').length;
    expect(signals).toBe(FLOOD);
    expect(added).toBeLessThanOrEqual(FLOOD * 1.5);
    expect(types.slice(before).filter((t) => t.startsWith('EVENT_TYPE_ACTIVITY_TASK'))).toEqual([]);
    // No activation took more than a wave (see WAVE): the worker never ran near its isolate timeout.
    const activations = signalsPerActivation(types.slice(before));
    expect(Math.max(...activations)).toBeLessThanOrEqual(WAVE);
    console.log(
      `history grew by ${added} events for ${FLOOD} refused signals in ${activations.length} activations (at most ${Math.max(...activations)} signals each), sent and taken in ${Date.now() - floodStart} ms`,
    );

    // The decision arrives by the `decide` update (it still does once the server refuses more signals
    // for this execution: its per-execution limit is 10,000 by default), and the approved action runs.
    expect(await decide(handle, 'approve', {}, flooded, { via: 'update' })).toMatchObject({ accepted: true });
    const result = (await handle.result()) as { status: string; output: { outcome: string } };
    expect(result).toMatchObject({ status: 'succeeded', output: { outcome: 'refunded' } });
    const events = await h.composition.store.listEvents(handle.workflowId, { limit: 5000 });
    expect(events.filter((e) => e.type === 'human.signal_rejected')).toHaveLength(
      MAX_REFUSAL_EVENTS_PER_WAIT,
    );
    expect(events.find((e) => e.type === 'human.signal_rejections_suppressed')?.data).toMatchObject({
      count: FLOOD - MAX_REFUSAL_EVENTS_PER_WAIT,
      recorded: MAX_REFUSAL_EVENTS_PER_WAIT,
    });
    const view = await handle.query<RunView>('state');
    expect(view.invocations.filter((i) => i.tool === 'refund.create')).toHaveLength(1);
  });
});
