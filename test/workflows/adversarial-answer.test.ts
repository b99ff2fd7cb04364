import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelScript } from '../../src/worker/model/scripted-script.js';
import type { AgentRunResult } from '../../src/core/workflow/agent-run.js';
import { createHarnessFixture, historyEventTypes, type HarnessFixture } from '../support/harness.js';

/**
 * 200,000 characters shaped to make backtracking patterns slow: long runs of word characters, dots,
 * at-signs, dotted calls, digits and dashes (the e-mail, dotted-call, phone and card patterns).
 */
function adversarialText(chars: number): string {
  const shapes = [
    'a'.repeat(5000),
    'a.'.repeat(2500),
    'a@'.repeat(2500),
    'a.a('.repeat(1250),
    '1'.repeat(5000),
    '-1'.repeat(2500),
    ' '.repeat(5000),
  ];
  let text = '';
  for (let i = 0; text.length < chars; i++) text += shapes[i % shapes.length];
  return text.slice(0, chars);
}

const ADVERSARIAL: ModelScript = { entries: [], fallback: { text: adversarialText(200_000), toolCalls: [] } };

/**
 * A model that answers 200,000 characters of adversarial text: the output guardrail reads it in linear
 * time (and at most its documented cap), so the run ends cleanly, on its first workflow task attempts:
 * no workflow task fails or times out.
 */
describe('a 200,000-character adversarial model answer', { timeout: 180_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('adversarial-answer', {
      scripts: { 'scripted/adversarial': ADVERSARIAL },
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
});
