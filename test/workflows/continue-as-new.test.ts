import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide } from '../support/decisions.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { ENDLESS_READS } from '../support/scripts.js';

describe('long runs continue as new, carrying compact state', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('can', { scripts: { 'scripted/endless': ENDLESS_READS } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a goal run crosses more than three generations; sequences continue, budgets carry over', async () => {
    const handle = await h.start({
      profile: { name: 'support.answer', version: 'v1' },
      modelRoute: 'scripted/endless',
      task: { message: 'keep reading' },
      continueAsNewAfterEvents: 100,
      budget: {
        maxSteps: 1000,
        maxModelCalls: 40,
        maxToolCalls: 1000,
        maxDuplicateCalls: 1000,
        maxStepsWithoutProgress: 1000,
      },
    });
    const result = (await h.t.client.workflow.getHandle(handle.workflowId).result()) as {
      status: string;
      terminalReason: { code: string };
    };
    expect(result.status).toBe('budget_exhausted');
    expect(result.terminalReason.code).toBe('budget.max_model_calls');

    const executions: string[] = [];
    for await (const w of h.t.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` }))
      executions.push(w.runId);
    expect(executions.length).toBeGreaterThan(3);

    const view = await h.t.client.workflow.getHandle(handle.workflowId).query<RunView>('state');
    expect(view.budget.modelCalls).toBe(40);
    expect(view.invocations.map((i) => i.seq)).toEqual(view.invocations.map((_, i) => i + 1));
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(
      events.filter(
        (e) => e.type === 'checkpoint.saved' && (e.data as { reason: string }).reason === 'continue_as_new',
      ).length,
    ).toBe(executions.length - 1);
    expect(events.filter((e) => e.type === 'run.created')).toHaveLength(1);
    // The model saw one continuous conversation: message groups are keyed by call number across generations.
    const groups = await h.composition.store.listMessageGroups(handle.workflowId);
    expect(groups.map((g) => g.seq)).toEqual(groups.map((_, i) => i + 1));
  });

  it('a graph run that continues as new still waits for and honours its approval', async () => {
    const handle = await h.start({
      task: { message: 'refund ORD-1001', customerId: 'C1001' },
      continueAsNewAfterEvents: 30,
    });
    const current = h.t.client.workflow.getHandle(handle.workflowId);
    const waiting = await waitForState(current, (v) => v.status === 'awaiting_confirmation');
    await decide(current, 'approve', {}, waiting);
    const result = (await current.result()) as { status: string; output: { outcome: string } };
    expect(result).toMatchObject({ status: 'succeeded', output: { outcome: 'refunded' } });
    const executions: string[] = [];
    for await (const w of h.t.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` }))
      executions.push(w.runId);
    expect(executions.length).toBeGreaterThan(1);
  });
});
