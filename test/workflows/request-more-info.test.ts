import { defaultSeedData } from '../../apps/refund/business/seed-data.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDecision, signedPayload } from '../../src/client/decisions/send-decision.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { decide } from '../support/decisions.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { TEST_KEYS } from '../support/principals.js';
import { callAt, textAt } from './runner-support.js';

const CUSTOMER = TEST_KEYS.customer.principal;
const ORDER = 'ORD-MORE-INFO';

/** The model that proposes a large refund on its own: two approvers must decide it. */
const EAGER = {
  entries: [
    callAt(0, 'refund.create', { orderId: ORDER, amountCents: 680_000, reason: 'the model thought so' }),
    textAt(1, 'done'),
  ],
  fallback: { text: 'done' },
};

describe('request_more_info: an approver asks the requester before deciding (real server)', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('request-more-info', { scripts: { 'scripted/eager': EAGER } });
    const store = h.composition.refundStore;
    const paidAt = new Date(store.now().getTime() - 96 * 3_600_000).toISOString();
    store.seed({
      orders: [
        {
          id: ORDER,
          customerId: CUSTOMER,
          status: 'paid',
          amountCents: 680_000,
          currency: 'CNY',
          paidAt,
          phone: '13800001001',
        },
      ],
      logistics: [{ orderId: ORDER, status: 'not_shipped', updatedAt: paidAt }],
      policies: defaultSeedData(store.now()).policies,
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the question goes to the requester (awaiting_input); the answer brings the action back, unapproved', async () => {
    const handle = await h.start({
      profile: { name: 'refund.assistant', version: 'v1' },
      modelRoute: 'scripted/eager',
      task: { message: 'how are you?' },
      userId: CUSTOMER,
    });
    const asking = await waitForState(handle, (v) => v.pendingAction?.kind === 'human');
    const decisionId = asking.pendingAction!.actionId;
    expect(asking.humanRequest?.allowedDecisions).toEqual(['approve', 'reject', 'request_more_info']);
    // One approval first: it stands, the question does not spend it.
    expect(await decide(handle, 'approve', {}, asking, { via: 'update' })).toMatchObject({
      accepted: true,
      approvals: { have: 1, need: 2 },
    });
    const question = 'Why is the whole amount refunded, not just the shipping?';
    // Signed and authorized like a decision: unsigned, by the customer, by a viewer: refused.
    const unsigned = { actionId: decisionId, actor: TEST_KEYS.lead.principal, question };
    expect(await sendDecision(handle, 'requestMoreInfo', unsigned)).toMatchObject({
      accepted: false,
      code: 'decision.unsigned',
    });
    for (const [key, code] of [
      [TEST_KEYS.customer, 'decision.customer_cannot_approve'],
      [TEST_KEYS.viewer, 'decision.role_missing'],
    ] as const) {
      const payload = signedPayload(key, asking, 'requestMoreInfo', { question }, asking.pendingAction!);
      expect(await sendDecision(handle, 'requestMoreInfo', payload)).toMatchObject({ accepted: false, code });
    }
    const asked = await decide(handle, 'requestMoreInfo', { question }, asking, {
      via: 'update',
      key: TEST_KEYS.lead,
    });
    expect(asked).toMatchObject({ accepted: true, principal: TEST_KEYS.lead.principal });

    // The run waits for its requester's answer, with the question addressed to them.
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_input');
    expect(waiting.waitingReason).toBe('more_info_requested');
    expect(waiting.pendingAction).toMatchObject({ kind: 'input', slot: `more_info:${decisionId}` });
    expect(waiting.pendingAction!.expiresAt).toBe(asking.pendingAction!.expiresAt);
    expect(waiting.humanRequest).toMatchObject({
      decisionType: 'more_info_requested',
      allowedDecisions: ['provideInput'],
      expiresAt: asking.pendingAction!.expiresAt,
    });
    expect(waiting.humanRequest!.requestSummary).toContain(question);
    // Nothing can be approved meanwhile.
    expect(await decide(handle, 'approve', {}, asking, { via: 'update', key: TEST_KEYS.lead })).toMatchObject(
      { accepted: false, code: 'signal.no_pending_action' },
    );
    const answer = 'The parcel never left the warehouse.';
    const answered = await decide(
      handle,
      'provideInput',
      { slot: `more_info:${decisionId}`, value: answer },
      waiting,
      { via: 'update', key: TEST_KEYS.customer },
    );
    expect(answered).toMatchObject({ accepted: true, principal: CUSTOMER });

    // The same action comes back for a decision: not approved by the answer.
    const back = await waitForState(handle, (v) => v.status === 'awaiting_human');
    expect(back.pendingAction?.actionId).toBe(decisionId);
    expect(back.humanRequest!.requestSummary).toContain(answer);
    expect(back.humanRequest!.riskReasons).toContain('answered_more_info');
    expect(back.invocations.filter((i) => i.tool === 'refund.create')).toEqual([]);
    expect(await decide(handle, 'approve', {}, back, { via: 'update', key: TEST_KEYS.lead })).toMatchObject({
      accepted: true,
      approvals: { have: 2, need: 2 },
    });
    await handle.result();
    const view = await handle.query<RunView>('state');
    expect(view.invocations.filter((i) => i.tool === 'refund.create').map((i) => i.status)).toEqual([
      'succeeded',
    ]);

    const events = await h.composition.store.listEvents(handle.workflowId);
    const flow = events
      .map((e) => e.type)
      .filter((t) => t.startsWith('human.more_info') || t === 'human.decided' || t === 'tool.authorized');
    expect(flow).toEqual([
      'human.more_info_requested',
      'human.more_info_answered',
      'human.decided',
      'tool.authorized',
    ]);
    const requested = events.find((e) => e.type === 'human.more_info_requested')!.data;
    expect(requested).toMatchObject({ actionId: decisionId, question, actor: TEST_KEYS.lead.principal });
    const answeredEvent = events.find((e) => e.type === 'human.more_info_answered')!.data;
    expect(answeredEvent).toMatchObject({ actionId: decisionId, answer, actor: CUSTOMER });
    // HARNESS_RECORD_HISTORIES=<dir> keeps it as a replay fixture (agent-run-request-more-info-v1).
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'refund-assistant-more-info-v1');
    const decisions = view.decisions?.map((d) => [d.decision, d.principal]);
    expect(decisions).toEqual([
      ['approve', TEST_KEYS.ops.principal],
      ['request_more_info', TEST_KEYS.lead.principal],
      ['input', CUSTOMER],
      ['approve', TEST_KEYS.lead.principal],
    ]);
  });
});
