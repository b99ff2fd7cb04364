import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRunResult } from '../../../src/index.js';
import { approvePending } from '../../support/decisions.js';
import { at, call, createRetailFixture, planText, type RetailFixture } from './retail-fixture.js';

const EMAIL = 'sofia.rossi2645@example.com';
const PENDING = '#W5918442';

const AUTH_STEP = {
  step_id: 's1',
  objective: 'authenticate the customer',
  capability: 'authenticate',
  dependencies: [],
  success_condition: [{ fact: 'user.authenticated', op: 'eq', value: true }],
};
const READ_STEP = {
  step_id: 's2',
  objective: `read order ${PENDING}`,
  capability: 'order_details',
  dependencies: ['s1'],
  success_condition: [{ fact: 'order.id', op: 'eq', value: PENDING }],
};
const CANCEL_STEP = {
  step_id: 's3',
  objective: `cancel order ${PENDING}`,
  capability: 'cancel_pending_order',
  dependencies: ['s2'],
  success_condition: [{ fact: 'order.last_action', op: 'eq', value: 'cancel_pending_order' }],
  gate: 'confirmation',
};

/**
 * plan; s1: find the user (authenticate is then left: its entry no longer holds); s2: read the order,
 * done; s3: cancel (the order is no longer pending: the domain is left); the answer.
 */
const CANCEL_SCRIPT = {
  entries: [
    at(0, { text: planText([AUTH_STEP, READ_STEP, CANCEL_STEP]) }),
    at(1, { toolCalls: [call('find_user_id_by_email', { email: EMAIL })] }),
    at(2, { toolCalls: [call('get_order_details', { order_id: PENDING })] }),
    at(3, { text: 'The order is pending.' }),
    at(4, { toolCalls: [call('cancel_pending_order', { order_id: PENDING, reason: 'no longer needed' })] }),
    at(5, { text: `Your order ${PENDING} is cancelled.` }),
  ],
};

describe('retail.agent: plan, admission, routed steps, verified facts', { timeout: 120_000 }, () => {
  let f: RetailFixture;
  beforeAll(async () => {
    f = await createRetailFixture('retail-plan', { 'scripted/retail-cancel': CANCEL_SCRIPT });
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
      policyVersion: 'retail.policy@v1',
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
});
