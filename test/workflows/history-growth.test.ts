import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { ENDLESS_READS } from '../support/scripts.js';

/** Always one more read: the conversation grows by one model turn and one tool result per step. */
describe('history size per model step does not grow with the conversation', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('growth', { scripts: { 'scripted/endless': ENDLESS_READS } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('200 model steps: bytes per step stay flat (transcript lives in the evidence store)', async () => {
    const handle = await h.start({
      profile: { name: 'support.answer', version: 'v1' },
      modelRoute: 'scripted/endless',
      task: { message: 'keep reading' },
      budget: {
        maxSteps: 1000,
        maxModelCalls: 200,
        maxToolCalls: 1000,
        maxDuplicateCalls: 1000,
        maxStepsWithoutProgress: 1000,
      },
    });
    const result = (await handle.result()) as { status: string; terminalReason: { code: string } };
    expect(result.status).toBe('budget_exhausted');
    expect(result.terminalReason.code).toBe('budget.max_model_calls');
    const view = await handle.query<RunView>('state');
    expect(view.budget.modelCalls).toBe(200);

    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    // Bytes of the history between the k-th and the (k+1)-th model call being scheduled.
    const sizeOf = (e: unknown): number => JSON.stringify(e).length;
    const modelStarts: number[] = [];
    events.forEach((e, i) => {
      const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
      if (name === 'callModelV3') modelStarts.push(i);
    });
    expect(modelStarts.length).toBe(200);
    const stepBytes = modelStarts
      .slice(0, -1)
      .map((start, k) => events.slice(start, modelStarts[k + 1]).reduce((n, e) => n + sizeOf(e), 0));
    const avg = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    const early = avg(stepBytes.slice(5, 25));
    const late = avg(stepBytes.slice(170, 190));
    console.log(
      `history: ${events.length} events; bytes per model step early ${early.toFixed(0)}, late ${late.toFixed(0)}`,
    );
    expect(late / early).toBeLessThan(1.1);
  });
});
