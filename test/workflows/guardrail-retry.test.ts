import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelScript } from '../../src/activities/model/scripted-script.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { historyOf } from '../support/history.js';

const CLAIM = 'Good news: your refund for ORD-1001 has been created.';
const HONEST = 'I have not made a refund for ORD-1001; an agent will review your request.';

/** Claims a refund (no evidence) until the harness tells it the claim was blocked. */
const RETRY_ONCE: ModelScript = {
  entries: [
    { match: { contains: 'guardrail.output.unsupported_claim' }, response: { text: HONEST, toolCalls: [] } },
  ],
  fallback: { text: CLAIM, toolCalls: [] },
};
/** Always claims a refund it never made. */
const ALWAYS_CLAIMS: ModelScript = { entries: [], fallback: { text: CLAIM, toolCalls: [] } };

describe('support.answer@v2 composes a blocked answer again, within its retries', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('guardrail-retry', {
      scripts: { 'scripted/retry-once': RETRY_ONCE, 'scripted/always-claims': ALWAYS_CLAIMS },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const start = (modelRoute: string) =>
    h.start({
      profile: { name: 'support.answer', version: 'v2' },
      modelRoute,
      task: { message: 'Was my refund for ORD-1001 made?' },
    });

  it('the unsupported refund claim is blocked and recorded; the second answer passes and the run succeeds', async () => {
    const handle = await start('scripted/retry-once');
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    expect(result.output).toBe(HONEST);
    const view = await handle.query<RunView>('state');
    expect(view).toMatchObject({ schemaVersion: 2, outputRetries: 1 });
    expect(view.budget).toMatchObject({ modelCalls: 2, steps: 3 });
    const events = await h.composition.store.listEvents(handle.workflowId);
    const checks = events.filter((e) => e.type === 'guardrail.output_checked').map((e) => e.data);
    expect(checks).toMatchObject([
      { verdict: 'block', reasonCodes: ['guardrail.output.unsupported_claim'] },
      { verdict: 'pass', reasonCodes: [] },
    ]);
    expect(events.filter((e) => e.type === 'guardrail.output_retried').map((e) => e.data)).toEqual([
      {
        attempt: 1,
        maxRetries: 2,
        reasonCodes: ['guardrail.output.unsupported_claim'],
        findings: [{ code: 'guardrail.output.unsupported_claim', ruleId: 'claim.refund', path: '' }],
      },
    ]);
    expect(JSON.stringify(events)).not.toContain(CLAIM);
    // the retry is on through the baseline (run-patches.ts): no marker of its own, and a marker-free
    // start records none at all
    const markers = (await historyOf(handle)).flatMap((e) => (e.patchId ? [e.patchId] : []));
    expect(markers).toEqual([]);
  });

  it('when the retries run out the run ends failed with guardrail.output_blocked', async () => {
    const handle = await start('scripted/always-claims');
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('failed');
    expect(result.output).toBeNull();
    expect(result.terminalReason).toMatchObject({
      code: 'guardrail.output_blocked',
      details: { reasonCodes: ['guardrail.output.unsupported_claim'], retries: 2, maxRetries: 2 },
    });
    const view = await handle.query<RunView>('state');
    expect(view).toMatchObject({ outputRetries: 2, budget: { modelCalls: 3 } });
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.filter((e) => e.type === 'guardrail.output_retried').map((e) => e.data.attempt)).toEqual([
      1, 2,
    ]);
    expect(events.filter((e) => e.type === 'guardrail.output_checked').map((e) => e.data.verdict)).toEqual([
      'block',
      'block',
      'block',
    ]);
    expect(events.at(-2)?.type).toBe('run.failed');
    expect(events.at(-1)?.type).toBe('run.sealed');
  });
});
