import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRunResult } from '../../../src/index.js';
import type { StoredEvent } from '../../../src/contract/store-records.js';
import { approvePending, rejectPending } from '../../support/decisions.js';
import type { ExecutionInfo } from '../../../src/cli/connect.js';
import { renderRun } from '../../../src/cli/render-run.js';
import { waitForState } from '../../support/harness.js';
import { recordFixtureIfAsked } from '../../support/record-fixture.js';
import { artifactsDir } from '../../support/browser.js';
import { openRunPage } from '../../support/run-page.js';
import { join } from 'node:path';
import {
  at,
  call,
  createRetailFixture,
  planText,
  profileThenRead,
  type RetailFixture,
} from './retail-fixture.js';

const ETHAN = 'ethan.lopez8943@example.com';
/** The tenant of the run the run page shows. */
const PAGE_TENANT = 'retail-planner-page';
const [E_PENDING, E_DELIVERED] = ['#W6779827', '#W8632528'];
const SOFIA = 'sofia.thomas3069@example.com';
const S_PENDING = '#W7619352';
const NEW_ADDRESS = {
  address1: '1 Elm Street',
  address2: 'Apt 2',
  city: 'Austin',
  state: 'TX',
  country: 'USA',
  zip: '73301',
};

const auth = (id = 's1') => ({
  step_id: id,
  objective: 'authenticate',
  capability: 'authenticate',
  dependencies: [],
  success_condition: [{ fact: 'user.authenticated', op: 'eq', value: true }],
});
const readStep = (order: string, id = 's2', deps = ['s1']) => ({
  step_id: id,
  objective: `read ${order}`,
  capability: 'order_details',
  dependencies: deps,
  success_condition: [{ fact: 'order.id', op: 'eq', value: order }],
});
const cancelStep = (order: string, over: Record<string, unknown> = {}) => ({
  step_id: 's3',
  objective: `cancel ${order}`,
  capability: 'cancel_pending_order',
  dependencies: ['s2'],
  success_condition: [{ fact: 'order.last_action', op: 'eq', value: 'cancel_pending_order' }],
  gate: 'confirmation',
  ...over,
});
const text = (t: string) => ({ text: t });
const findUser = (email: string) => ({ toolCalls: [call('find_user_id_by_email', { email })] });

/** Four plans, each rejected for other violations; then the replan bound (3) sends the run to the fallback. */
const BAD_PLANS = [
  planText([
    auth(),
    { ...cancelStep(E_PENDING), dependencies: ['s1'], gate: undefined },
    { ...readStep(E_PENDING, 's4'), capability: 'teleport' },
  ]),
  planText(
    [auth(), { ...auth(), dependencies: ['s2'] }, readStep(E_PENDING, 's2', ['s1'])].map((s, i) =>
      i === 0 ? { ...s, dependencies: ['s2'] } : s,
    ),
  ),
  planText([auth(), { ...cancelStep(E_PENDING), dependencies: ['s9'], max_attempts: 9 }]),
  'I would cancel the order.',
];

const SCRIPTS = {
  'scripted/retail-says-no': {
    entries: [
      at(0, text(planText([auth(), readStep(E_PENDING), cancelStep(E_PENDING, { failure_route: 'abort' })]))),
      at(1, findUser(ETHAN)),
      at(2, profileThenRead('ethan_lopez_6291', E_PENDING)),
      at(3, text('Pending.')),
      at(4, {
        toolCalls: [call('cancel_pending_order', { order_id: E_PENDING, reason: 'no longer needed' })],
      }),
      at(5, text('The customer declined.')),
      at(6, text('Your order was not cancelled.')),
    ],
  },
  'scripted/retail-two-intents': {
    entries: [
      at(
        0,
        text(
          planText([
            auth(),
            readStep(S_PENDING),
            cancelStep(S_PENDING),
            {
              step_id: 's4',
              objective: 'change the default address',
              capability: 'user_address',
              dependencies: ['s1'],
              success_condition: [{ fact: 'user.last_action', op: 'eq', value: 'modify_user_address' }],
              gate: 'confirmation',
            },
          ]),
        ),
      ),
      at(1, findUser(SOFIA)),
      at(2, profileThenRead('sofia_thomas_1518', S_PENDING)),
      at(3, text('Pending.')),
      at(4, {
        toolCalls: [call('cancel_pending_order', { order_id: S_PENDING, reason: 'ordered by mistake' })],
      }),
      at(5, { toolCalls: [call('modify_user_address', { user_id: 'sofia_thomas_1518', ...NEW_ADDRESS })] }),
      at(6, text('Address changed.')),
      at(7, text('Cancelled and moved.')),
    ],
  },
  'scripted/retail-rejected-plans': {
    entries: [
      ...BAD_PLANS.map((p, i) => at(i, text(p))),
      at(4, text('A person will help.')),
      at(5, text('A person will help you.')),
    ],
  },
  'scripted/retail-replan': {
    entries: [
      at(
        0,
        text(
          planText([auth(), readStep(E_DELIVERED)], {
            replan_conditions: [
              { id: 'delivered', when: { fact: 'order.status', op: 'eq', value: 'delivered' } },
            ],
          }),
        ),
      ),
      at(1, findUser(ETHAN)),
      at(2, profileThenRead('ethan_lopez_6291', E_DELIVERED)),
      at(3, text('It was delivered.')),
      ...[4, 5, 6].map((n) =>
        at(
          n,
          text(
            planText([{ ...cancelStep(E_DELIVERED), step_id: 'c1', dependencies: [] }], { plan_id: `p${n}` }),
          ),
        ),
      ),
      at(7, text('A person will help.')),
      at(8, text('A person will help you.')),
    ],
  },
};

const ofType = (events: StoredEvent[], type: string) =>
  events.filter((e) => e.type === type).map((e) => e.data);

describe(
  'retail.agent: the plan is admitted before anything runs, executed step by step, replanned within bounds',
  { timeout: 180_000 },
  () => {
    let f: RetailFixture;
    beforeAll(async () => {
      f = await createRetailFixture('retail-planner', SCRIPTS);
    });
    afterAll(async () => {
      await f?.close();
    });

    /** The run's end, its events, and (with HARNESS_RECORD_HISTORIES) its history kept as `fixture`. */
    async function finished(handle: Awaited<ReturnType<RetailFixture['start']>>, fixture: string) {
      const result = (await handle.result()) as AgentRunResult;
      await recordFixtureIfAsked(f.h.t.client, handle.workflowId, fixture);
      return { result, events: await f.events(handle) };
    }

    it('the customer says no: nothing is written, the step fails and the plan is abandoned', async () => {
      const handle = await f.start('retail.agent', 'scripted/retail-says-no', 'Cancel my order.');
      await rejectPending(handle, { reason: 'no', timeoutMs: 60_000 });
      const { result, events } = await finished(handle, 'retail-agent-customer-says-no-v2');
      expect(result.status).toBe('succeeded');
      expect(result.output).toBe('Your order was not cancelled.');
      expect(f.db.order(E_PENDING)?.status).toBe('pending');
      expect(ofType(events, 'plan.step_completed').at(-1)).toMatchObject({
        stepId: 's3',
        outcome: 'failed',
        reasonCode: 'plan.condition_not_met',
      });
      expect(ofType(events, 'tool.completed').map((d) => d.tool)).not.toContain(
        'retail.cancel_pending_order',
      );
    });

    it('two intents in one message: one plan, two gated writes, both confirmed', async () => {
      const handle = await f.start(
        'retail.agent',
        'scripted/retail-two-intents',
        'Cancel my order and change my address.',
      );
      const waiting = await approvePending(handle, { timeoutMs: 60_000 });
      // While the cancel waits for the customer, the view shows the plan and the step in progress.
      expect(waiting.routing).toMatchObject({ phase: 'step', plan: { planId: 'p1' } });
      expect(waiting.routing?.plan?.steps.map((st) => st.status)).toEqual([
        'succeeded',
        'succeeded',
        'running',
        'pending',
      ]);
      const page = renderRun(
        {
          workflowId: handle.workflowId,
          runId: 'r',
          status: 'RUNNING',
          startTime: new Date(0),
        } as ExecutionInfo,
        waiting,
      );
      expect(page).toMatch(/route: cancel_pending_order {2}\(phase step, 2 route changes, 0 replans\)/);
      expect(page).toMatch(/s3\s+cancel_pending_order\s+running/);
      // The second confirmation is another action: wait for it, not for the first one still shown.
      await waitForState(handle, (v) => v.pendingAction?.tool === 'retail.modify_user_address', 60_000);
      await approvePending(handle, { timeoutMs: 60_000 });
      const { result, events } = await finished(handle, 'retail-agent-two-intents-v2');
      expect(result.status).toBe('succeeded');
      expect(f.db.order(S_PENDING)?.status).toBe('cancelled');
      expect(f.db.user('sofia_thomas_1518')?.address).toMatchObject(NEW_ADDRESS);
      expect(ofType(events, 'plan.step_completed').map((d) => [d.stepId, d.outcome])).toEqual([
        ['s1', 'succeeded'],
        ['s2', 'succeeded'],
        ['s3', 'succeeded'],
        ['s4', 'succeeded'],
      ]);
    });

    it('rejected plans run no tool: every violation recorded, then the replan bound sends the run to the fallback', async () => {
      const handle = await f.start('retail.agent', 'scripted/retail-rejected-plans', 'Cancel my order.', {
        tenantId: PAGE_TENANT,
        userId: 'ethan_lopez_6291',
      });
      const { result, events } = await finished(handle, 'retail-agent-plans-rejected-v2');
      expect(result.status).toBe('succeeded');
      const rejected = ofType(events, 'plan.rejected') as { violations: { code: string }[] }[];
      expect(rejected.map((r) => r.violations.map((v) => v.code).sort())).toEqual([
        ['plan.facts_not_established', 'plan.gate_missing', 'plan.unknown_capability'],
        ['plan.dependency_cycle', 'plan.duplicate_step'],
        ['plan.attempts_exceeded', 'plan.facts_not_established', 'plan.unknown_dependency'],
        ['plan.invalid_shape'],
      ]);
      expect(events.some((e) => e.type.startsWith('tool.'))).toBe(false);
      expect(ofType(events, 'plan.fallback')).toEqual([
        { planId: null, reasonCode: 'plan.replan_limit', fallback: 'escalate' },
      ]);
      expect(ofType(events, 'route.decided').map((d) => d.route)).toEqual(['escalate']);

      // The run page (docs/api.md) shows the plans, why each was rejected, and the fallback route.
      const opened = await openRunPage(f.h, handle.workflowId, PAGE_TENANT);
      const page = opened.page;
      try {
        const plans = page.locator('[data-role=plan]');
        await expect.poll(() => plans.count(), { timeout: 30_000 }).toBe(3);
        expect(await plans.locator('[data-role=plan-verdict]').allInnerTexts()).toEqual([
          'rejected',
          'rejected',
          'rejected',
        ]);
        expect(await plans.first().innerText()).toContain('plan.unknown_capability');
        expect(await plans.first().locator('[data-role=plan-step]').count()).toBe(3);
        const turns = await page.locator('[data-role=replan]').allInnerTexts();
        expect(turns.at(-1)).toBe('plan.fallback · plan.replan_limit → escalate');
        expect(await page.locator('[data-role=route]').getAttribute('data-route')).toBe('escalate');
        await page.screenshot({ path: join(artifactsDir, 'run-page-plans-rejected.png'), fullPage: true });
      } finally {
        await opened.close();
      }
    });

    it('replans when the order is not what the plan assumed, then falls back when the bound is reached', async () => {
      const handle = await f.start('retail.agent', 'scripted/retail-replan', 'Cancel my order.');
      const { result, events } = await finished(handle, 'retail-agent-replan-limit-v2');
      expect(result.status).toBe('succeeded');
      expect(ofType(events, 'plan.replanned').map((d) => [d.reasonCode, d.replans])).toEqual([
        ['plan.replan_condition', 1],
        ['plan.capability_excluded', 2],
        ['plan.capability_excluded', 3],
      ]);
      expect(ofType(events, 'plan.fallback')).toMatchObject([{ reasonCode: 'plan.replan_limit' }]);
      expect(f.db.order(E_DELIVERED)?.status).toBe('delivered');
    });
  },
);
