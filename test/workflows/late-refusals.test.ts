import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/worker/store/records.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { testRunId } from '../support/run-id.js';

const ENDLESS_READS = {
  entries: [],
  fallback: {
    text: '',
    toolCalls: [{ name: 'order.read', version: 'v1', args: { orderId: 'ORD-1001' } }],
    usage: { inputTokens: 10, outputTokens: 5 },
  },
};

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
