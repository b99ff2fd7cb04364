import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedProvider } from '../../src/activities/model/scripted-provider.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import {
  createHarnessFixture,
  historyEventTypes,
  waitForState,
  type HarnessFixture,
} from '../support/harness.js';
import { endlessSearch, scheduledActivities } from './runner-support.js';

const SUPPORT = { name: 'support.answer', version: 'v1' };
const USAGE = { inputTokens: 100, outputTokens: 40 };

describe('each budget ends an agentRun as budget_exhausted naming it (real server)', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('runner-budgets', {
      scripts: { 'scripted/test': endlessSearch(40, USAGE) },
    });
    // The composition registers scripted routes at zero price; a priced route for the cost budget is
    // registered on the worker's router directly (1 USD per 100 input tokens, output free).
    h.composition.models.register(
      'scripted/priced',
      new ScriptedProvider(endlessSearch(40, USAGE), {
        '*': { inputUsdPerMTok: 10_000, outputUsdPerMTok: 0 },
      }),
      'scripted',
    );
  });
  afterAll(async () => {
    await h?.close();
  });

  async function exhaust(budget: Record<string, unknown>, modelRoute = 'scripted/test') {
    const handle = await h.start({
      profile: SUPPORT,
      modelRoute,
      task: { message: 'search the refund policy' },
      budget,
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('budget_exhausted');
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(
      events.filter((e) => e.type === 'budget.exhausted').map((e) => `budget.${String(e.data.budget)}`),
    ).toEqual([result.terminalReason?.code]);
    const view = await handle.query<RunView>('state');
    const activities = await scheduledActivities(handle);
    return { result, view, activities, code: result.terminalReason?.code };
  }

  it('maxSteps', async () => {
    const { code, view } = await exhaust({ maxSteps: 3 });
    expect(code).toBe('budget.max_steps');
    expect(view.budget.steps).toBe(3);
  });

  it('maxModelCalls', async () => {
    const { code, activities } = await exhaust({ maxModelCalls: 2 });
    expect(code).toBe('budget.max_model_calls');
    expect(activities.filter((a) => a.type === 'callModelV3')).toHaveLength(2);
  });

  it('maxToolCalls', async () => {
    const { code, activities } = await exhaust({ maxToolCalls: 2 });
    expect(code).toBe('budget.max_tool_calls');
    expect(activities.filter((a) => a.type === 'runToolV3')).toHaveLength(2);
  });

  it('perToolLimit', async () => {
    const { code, result, activities } = await exhaust({ perToolLimit: { 'policy.search.refund': 3 } });
    expect(code).toBe('budget.per_tool_limit');
    expect(result.terminalReason?.details).toMatchObject({ detail: 'policy.search.refund', limit: 3 });
    expect(activities.filter((a) => a.type === 'runToolV3')).toHaveLength(3);
  });

  it('maxInputTokens (scripted usage)', async () => {
    const { code, view } = await exhaust({ maxInputTokens: 250 });
    expect(code).toBe('budget.max_input_tokens');
    expect(view.budget.inputTokens).toBe(300);
  });

  it('maxOutputTokens (scripted usage)', async () => {
    const { code, view } = await exhaust({ maxOutputTokens: 100 });
    expect(code).toBe('budget.max_output_tokens');
    expect(view.budget.outputTokens).toBe(120);
  });

  it('maxCostUsd (priced scripted route)', async () => {
    const { code, view } = await exhaust({ maxCostUsd: 2.5 }, 'scripted/priced');
    expect(code).toBe('budget.max_cost_usd');
    expect(view.budget.costUsd).toBeCloseTo(3);
  });

  it('wall-clock deadline while waiting for approval', async () => {
    const handle = await h.start({
      profile: { name: 'refund.graph', version: 'v1' },
      policy: { name: 'refund.rules', version: 'v1' },
      modelRoute: 'scripted/refund',
      task: { message: 'My order ORD-1001 has not shipped, please refund', customerId: 'C1001' },
      budget: { deadlineSeconds: 6 },
    });
    await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('budget_exhausted');
    expect(result.terminalReason?.code).toBe('budget.wall_clock_deadline');
    const view = await handle.query<RunView>('state');
    expect(view.pendingAction).toBeNull();
    expect(view.invocations.some((i) => i.tool === 'refund.create')).toBe(false);
    const history = await historyEventTypes(handle);
    expect(history).toContain('EVENT_TYPE_TIMER_FIRED');
    expect(history).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)?.data).toMatchObject({ status: 'budget_exhausted' });
  });
});
