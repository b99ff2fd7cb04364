import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopesOf, projectPublic } from '../../src/client/evidence/public-projection.js';
import type { ModelScript } from '../../src/activities/model/scripted-script.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { callAt, textAt } from './runner-support.js';

const PHONE = '13800001001';
const MASKED = '138****1001';

/** Reads the order, then answers with the customer's phone number from the order data. */
const CONTACT_SCRIPT: ModelScript = {
  entries: [
    callAt(0, 'order.read', { orderId: 'ORD-1001' }),
    textAt(1, `Order ORD-1001 is paid and not shipped yet. We will call you at ${PHONE} about it.`),
  ],
  fallback: { text: 'unexpected', toolCalls: [] },
};

describe('mask.phone end to end (refund.rules@v1 reads carry mask.phone)', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('guardrail-masking', { scripts: { 'scripted/contact': CONTACT_SCRIPT } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a response carrying the customer phone leaves masked; the public projection is masked too', async () => {
    const handle = await h.start({
      profile: { name: 'support.answer', version: 'v1' },
      policy: { name: 'refund.rules', version: 'v1' },
      modelRoute: 'scripted/contact',
      task: { message: 'Is my order ORD-1001 refundable?' },
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    expect(result.output).toBe(
      `Order ORD-1001 is paid and not shipped yet. We will call you at ${MASKED} about it.`,
    );
    const view = await handle.query<RunView>('state');
    expect(view.obligations).toEqual(['mask.phone']);
    expect(view.output).toBe(result.output);
    expect(JSON.stringify(view)).not.toContain(PHONE);

    const stored = await h.composition.store.listEvents(handle.workflowId);
    const checked = stored.find((e) => e.type === 'guardrail.output_checked');
    expect(checked?.data).toMatchObject({ verdict: 'rewritten', reasonCodes: ['guardrail.output.masked'] });
    const projection = projectPublic(envelopesOf(stored));
    expect(projection.appliedObligations).toEqual(['mask.phone']);
    expect(JSON.stringify(projection.events)).not.toContain(PHONE);
    // the response is recorded in run.completed, masked, and so it stays in the projection
    expect(projection.events.find((e) => e.type === 'run.completed')?.data.output).toBe(result.output);
    // the stored events (internal) never held the raw phone either
    expect(JSON.stringify(stored)).not.toContain(PHONE);
  });
});
