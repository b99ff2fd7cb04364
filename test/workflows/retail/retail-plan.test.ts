import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRunResult } from '../../../src/index.js';
import { approvePending, decide } from '../../support/decisions.js';
import { waitForState } from '../../support/harness.js';
import { TEST_KEYS } from '../../support/principals.js';
import {
  at,
  call,
  createRetailFixture,
  planText,
  profileThenRead,
  type RetailFixture,
} from './retail-fixture.js';

const EMAIL = 'sofia.rossi2645@example.com';
const PENDING = '#W5918442';

/** Ethan signs his own run (a verified requester): the customer's own confirmation is asked. */
const ETHAN = 'ethan.lopez8943@example.com';
const ETHAN_PENDING = '#W6426438';

/** Authenticate, read the order, cancel it behind a confirmation. */
const cancelSteps = (order: string) => [
  {
    step_id: 's1',
    objective: 'authenticate the customer',
    capability: 'authenticate',
    dependencies: [],
    success_condition: [{ fact: 'user.authenticated', op: 'eq', value: true }],
  },
  {
    step_id: 's2',
    objective: `read order ${order}`,
    capability: 'order_details',
    dependencies: ['s1'],
    success_condition: [{ fact: 'order.id', op: 'eq', value: order }],
  },
  {
    step_id: 's3',
    objective: `cancel order ${order}`,
    capability: 'cancel_pending_order',
    dependencies: ['s2'],
    success_condition: [{ fact: 'order.last_action', op: 'eq', value: 'cancel_pending_order' }],
    gate: 'confirmation',
  },
];

/**
 * plan; s1: find the user (authenticate is then left: its entry no longer holds); s2: read the order,
 * done; s3: cancel (the order is no longer pending: the domain is left); the answer.
 */
const cancelScript = (email: string, userId: string, order: string) => ({
  entries: [
    at(0, { text: planText(cancelSteps(order)) }),
    at(1, { toolCalls: [call('find_user_id_by_email', { email })] }),
    at(2, profileThenRead(userId, order)),
    at(3, { text: 'The order is pending.' }),
    at(4, { toolCalls: [call('cancel_pending_order', { order_id: order, reason: 'no longer needed' })] }),
    at(5, { text: `Your order ${order} is cancelled.` }),
  ],
});

describe('retail.agent: plan, admission, routed steps, verified facts', { timeout: 120_000 }, () => {
  let f: RetailFixture;
  beforeAll(async () => {
    f = await createRetailFixture('retail-plan', {
      'scripted/retail-cancel': cancelScript(EMAIL, 'sofia_rossi_8776', PENDING),
      'scripted/retail-cancel-signed': cancelScript(ETHAN, 'ethan_lopez_6291', ETHAN_PENDING),
    });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('cancels a pending order after authentication, a verified read and the customer confirmation', async () => {
    const handle = await f.start('retail.agent', 'scripted/retail-cancel', 'Please cancel my pending order.');
    const view = await approvePending(handle, { timeoutMs: 20_000 }).catch(async (err) => {
      for (const e of await f.events(handle)) console.log('EV', e.type, JSON.stringify(e.data).slice(0, 400));
      throw err;
    });
    expect(view.pendingAction).toMatchObject({ kind: 'confirmation', tool: 'retail.cancel_pending_order' });
    expect(view.humanRequest?.requestSummary).toContain(`Cancel order ${PENDING}`);
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    expect(f.db.order(PENDING)?.status).toBe('cancelled');
    const events = await f.events(handle);
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t.startsWith('plan.'))).toEqual([
      'plan.proposed',
      'plan.admitted',
      'plan.step_started',
      'plan.step_completed',
      'plan.step_started',
      'plan.step_completed',
      'plan.step_started',
      'plan.step_completed',
    ]);
    const routes = events.filter((e) => e.type === 'route.decided').map((e) => e.data);
    expect(routes.map((r) => [r.route, r.reasonCode, r.decidedBy, r.stepId])).toEqual([
      ['authenticate', 'route.plan_step', 'plan', 's1'],
      ['order_details', 'route.plan_step', 'plan', 's2'],
      ['cancel_pending_order', 'route.plan_step', 'plan', 's3'],
    ]);
    expect(routes[2]).toMatchObject({
      kind: 'domain',
      policyVersion: 'retail.policy@v2',
      checkerVersion: 'route-checker@v1',
    });
    expect(events.filter((e) => e.type === 'plan.step_completed').map((e) => e.data.outcome)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    const facts: Record<string, unknown> = {};
    for (const e of events) if (e.type === 'fact.recorded') facts[String(e.data.name)] = e.data.value;
    expect(facts).toMatchObject({
      'user.authenticated': true,
      'order.id': PENDING,
      'order.status': 'cancelled',
      'order.owned_by_user': true,
    });
  });

  it('a signed run: only the customer confirms (confirm.user.v1); an operator cannot', async () => {
    const handle = await f.h.start({
      profile: { name: 'retail.agent', version: 'v2' },
      modelRoute: 'scripted/retail-cancel-signed',
      task: { message: 'Please cancel my pending order.', customerId: 'C1001' },
    });
    const view = await waitForState(handle, (v) => v.pendingAction?.kind === 'confirmation', 60_000);
    expect(view.humanRequest).toMatchObject({
      decisionType: 'customer_confirmation',
      allowedDecisions: ['confirm', 'reject'],
    });
    await decide(handle, 'approve', {}, view); // an operator's approval is not the customer's confirmation
    await decide(handle, 'confirm', {}, view, { key: TEST_KEYS.customer });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    expect(f.db.order(ETHAN_PENDING)?.status).toBe('cancelled');
    const events = await f.events(handle);
    expect(events.find((e) => e.type === 'human.signal_rejected')).toBeDefined();
    const decided = events.find((e) => e.type === 'human.decided')!.data;
    expect(JSON.stringify(decided)).toContain(TEST_KEYS.customer.principal);
  });
});
