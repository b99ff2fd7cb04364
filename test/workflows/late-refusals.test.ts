import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/contract/store-records.js';
import { MIN_WAIT_HISTORY_BOUND_BYTES } from '../../src/contract/wait-history-bound.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { decide } from '../support/decisions.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { testRunId } from '../support/run-id.js';
import { ENDLESS_READS } from '../support/scripts.js';

/** How long the first attempt of the last flush takes: the signal reaches the server meanwhile. */
const HOLD_MS = 500;

const isContinueAsNewCheckpoint = (e: StoredEvent) =>
  e.type === 'checkpoint.saved' && (e.data as { reason?: string }).reason === 'continue_as_new';

/**
 * A signal that comes while a generation's last flush (a local activity, inside its workflow task)
 * stores the outbox before continue-as-new. The server refuses the task's continue-as-new (a signal
 * came meanwhile) and the retried task handles the signal before the events the first attempt had
 * stored, numbering them differently. The retried flush is what the history records: the store keeps
 * it, the run goes on, and the refusal is recorded once, in a gap-free sequence. Before, the store
 * refused the retried flush for ever (`store.conflict`) and the run never moved again.
 */
describe('a signal that comes while a generation stores its last events', { timeout: 120_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('late-refusals', { scripts: { 'scripted/endless': ENDLESS_READS } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is recorded once; the run goes on; the sequence stays gap-free', async () => {
    const workflowId = testRunId('late-refusals');
    const store = h.composition.store;
    const append = store.appendLastFlush.bind(store);
    let sent = false;
    store.appendLastFlush = async (events) => {
      if (!sent && events.some(isContinueAsNewCheckpoint)) {
        sent = true;
        await h.t.client.workflow
          .getHandle(workflowId)
          .signal('approve', { forged: 'while the last events are stored' });
        await sleep(HOLD_MS);
      }
      return append(events);
    };
    try {
      const handle = await h.start(
        {
          profile: { name: 'support.answer', version: 'v1' },
          modelRoute: 'scripted/endless',
          task: { message: 'keep reading' },
          continueAsNewAfterEvents: 60,
          budget: {
            maxSteps: 1000,
            maxModelCalls: 12,
            maxToolCalls: 1000,
            maxDuplicateCalls: 1000,
            maxStepsWithoutProgress: 1000,
          },
        },
        workflowId,
      );
      const result = (await handle.result()) as { status: string };
      expect(result.status).toBe('budget_exhausted');
    } finally {
      store.appendLastFlush = append;
    }
    expect(sent).toBe(true);

    const events = await store.listEvents(workflowId, { limit: 10_000 });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const refused = events.filter((e) => e.type === 'human.signal_rejected');
    expect(refused).toHaveLength(1);
    expect(refused[0]!.data).toMatchObject({
      signal: 'approve',
      payload: { forged: 'while the last events are stored' },
    });
    // One checkpoint per move to a new history: the abandoned attempt's one was replaced.
    const moves = events.filter(isContinueAsNewCheckpoint);
    let executions = 0;
    for await (const _ of h.t.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
      executions += 1;
    expect(moves).toHaveLength(executions - 1);
  });
});

/**
 * The same window on a wait whose history reached its bound: the last flush before continue-as-new
 * is stored, and a valid decision reaches the server meanwhile. The retried task takes the decision
 * (the wait is answered, the run does not continue as new) and goes on; its next activity's events
 * replace the abandoned attempt's provisional ones. Before, that activity met them for ever
 * (`store.conflict`: the approved refund "did not start").
 */
describe('a decision that comes while a wait moves to a new history', { timeout: 120_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('abandoned-flush');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is taken by the retried task; the run completes with every event once', async () => {
    const workflowId = testRunId('abandoned-flush');
    const store = h.composition.store;
    const append = store.appendLastFlush.bind(store);
    let view: RunView | undefined;
    let sent = false;
    store.appendLastFlush = async (events) => {
      if (!sent && view !== undefined && events.some(isContinueAsNewCheckpoint)) {
        sent = true;
        await decide(h.t.client.workflow.getHandle(workflowId), 'approve', {}, view);
        await sleep(HOLD_MS);
      }
      return append(events);
    };
    try {
      const handle = await h.start(
        {
          task: { message: 'refund ORD-1001 please', customerId: 'C1001' },
          waitHistoryBoundBytes: MIN_WAIT_HISTORY_BOUND_BYTES,
        },
        workflowId,
      );
      view = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
      const actionId = view.pendingAction!.actionId;
      const big = { actionId, actor: 'mallory@example.com', reason: 'x'.repeat(40 * 1024) };
      for (let i = 0; i < 6 && !sent; i++) {
        await handle.signal('approve', big);
        await sleep(300);
      }
      expect(sent).toBe(true);
      const result = (await handle.result()) as { status: string; output: { outcome: string } };
      expect(result).toMatchObject({ status: 'succeeded', output: { outcome: 'refunded' } });
      const events = await store.listEvents(workflowId, { limit: 10_000 });
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(
        events.filter(
          (e) => e.type === 'human.decided' && (e.data as { actionId: string }).actionId === actionId,
        ),
      ).toHaveLength(1);
      let executions = 0;
      for await (const _ of h.t.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
        executions += 1;
      expect(events.filter(isContinueAsNewCheckpoint)).toHaveLength(executions - 1);
      expect(await store.getRun(workflowId)).toMatchObject({ status: 'succeeded' });
    } finally {
      store.appendLastFlush = append;
    }
  });
});
