import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelScript } from '../../src/activities/model/scripted-script.js';
import { MAX_MODEL_TEXT_CHARS } from '../../src/activities/model-activities.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import { createHarnessFixture, historyEventTypes, type HarnessFixture } from '../support/harness.js';

/**
 * 200,000 characters shaped to make backtracking patterns slow: long unbroken runs of word characters,
 * of dotted words and of digits (a pattern that restarts at every position and scans to the end of
 * such a run is quadratic in its length: 2 to 3 s for 40,000 characters before the patterns were made
 * linear, so over a minute here).
 */
function adversarialText(): string {
  return `${'a'.repeat(70_000)}${'a.'.repeat(35_000)} ${'1'.repeat(59_999)}`;
}

const ADVERSARIAL: ModelScript = { entries: [], fallback: { text: adversarialText(), toolCalls: [] } };
/** Over the bound of one model answer (MAX_MODEL_TEXT_CHARS), yet under Temporal's payload limit. */
const HUGE: ModelScript = {
  entries: [],
  fallback: { text: 'x'.repeat(MAX_MODEL_TEXT_CHARS + 1), toolCalls: [] },
};
/** Many tool calls whose arguments together pass the bound of one decision. */
const MANY_CALLS: ModelScript = {
  entries: [],
  fallback: {
    text: '',
    toolCalls: Array.from({ length: 20 }, (_, i) => ({
      id: `c${i}`,
      name: 'order.read',
      version: 'v1',
      args: { orderId: 'y'.repeat(30_000) },
    })),
  },
};

/**
 * A model that answers 200,000 characters of adversarial text: the output guardrail reads it in linear
 * time (and at most its documented cap), so the run ends cleanly, on its first workflow task attempts:
 * no workflow task fails or times out.
 */
describe('a 200,000-character adversarial model answer', { timeout: 180_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('adversarial-answer', {
      scripts: {
        'scripted/adversarial': ADVERSARIAL,
        'scripted/huge': HUGE,
        'scripted/many-calls': MANY_CALLS,
      },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('finishes or refuses cleanly; no workflow task fails on a deadline', async () => {
    const handle = await h.start({
      profile: { name: 'support.answer', version: 'v1' },
      modelRoute: 'scripted/adversarial',
      task: { message: 'Tell me about my order.' },
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(['succeeded', 'failed']).toContain(result.status);
    if (result.status === 'failed') expect(result.terminalReason?.code).toMatch(/^guardrail\./);
    const types = await historyEventTypes(handle);
    expect(
      types.filter(
        (t) => t === 'EVENT_TYPE_WORKFLOW_TASK_FAILED' || t === 'EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT',
      ),
    ).toEqual([]);
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.some((e) => e.type === 'guardrail.output_checked')).toBe(true);
  });

  it.each(['scripted/huge', 'scripted/many-calls'])(
    'an answer over the bounds of one model answer (%s) ends the run model.output_too_large, tried once',
    async (route) => {
      const handle = await h.start({
        profile: { name: 'support.answer', version: 'v1' },
        modelRoute: route,
        task: { message: 'Tell me about my order.' },
      });
      const result = (await handle.result()) as AgentRunResult;
      expect(result.status).toBe('failed');
      expect(result.terminalReason?.code, result.terminalReason?.message).toBe('model.output_too_large');
      const types = await historyEventTypes(handle);
      expect(types.filter((t) => t === 'EVENT_TYPE_ACTIVITY_TASK_STARTED')).toHaveLength(1);
      expect(
        types.filter(
          (t) => t === 'EVENT_TYPE_WORKFLOW_TASK_FAILED' || t === 'EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT',
        ),
      ).toEqual([]);
      // Nothing of it was kept as the call's message group.
      expect(await h.composition.store.listMessageGroups(handle.workflowId)).toEqual([]);
    },
  );
});
