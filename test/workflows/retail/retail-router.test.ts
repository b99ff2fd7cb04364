import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRunResult } from '../../../src/index.js';
import type { StoredEvent } from '../../../src/contract/store-records.js';
import { approvePending } from '../../support/decisions.js';
import { at, call, createRetailFixture, profileThenRead, type RetailFixture } from './retail-fixture.js';

/** Liam and his pending order. */
const LIAM = 'liam.thomas9081@example.com';
const P1 = '#W1654931';
/** Yusuf too (the ping-pong reads his, so no other case changes them). */
const YUSUF = 'yusuf.rossi7301@example.com';
const [YP1, YP2, YD1, YD2] = ['#W6247578', '#W4776164', '#W6679257', '#W2378156'];
const route = (r: string) => ({ text: JSON.stringify({ route: r }) });
const read = (order: string) => ({ toolCalls: [call('get_order_details', { order_id: order })] });
const LIAM_ID = 'liam_thomas_7882';
/** Another customer's pending order (Yusuf's). */
const OTHERS = '#W9711842';
const AUTH = { toolCalls: [call('find_user_id_by_email', { email: LIAM })] };

const SCRIPTS = {
  // 1. Order status: rules route to authenticate, the model chooses order_details twice, then answers.
  'scripted/retail-status': {
    entries: [
      at(0, AUTH),
      at(1, route('order_details')),
      at(2, profileThenRead(LIAM_ID, P1)),
      at(3, route('order_details')),
      at(4, { text: `Order ${P1} is pending.` }),
    ],
  },
  // 2. A write before its facts: cancel is not offered in order_details; read, route, then cancel.
  'scripted/retail-blocked': {
    entries: [
      at(0, AUTH),
      at(1, route('order_details')),
      at(2, { toolCalls: [call('cancel_pending_order', { order_id: P1, reason: 'no longer needed' })] }),
      at(3, profileThenRead(LIAM_ID, P1)),
      at(4, route('cancel_pending_order')),
      at(5, { toolCalls: [call('cancel_pending_order', { order_id: P1, reason: 'no longer needed' })] }),
      // The cancel domain is left (the order is no longer pending): routed again.
      at(6, route('order_details')),
      at(7, { text: `Order ${P1} is cancelled.` }),
    ],
  },
  // 3. Another customer's order: refused before the profile is read, and after it (not listed).
  'scripted/retail-other-order': {
    entries: [
      at(0, AUTH),
      at(1, route('order_details')),
      at(2, read(OTHERS)),
      at(3, { toolCalls: [call('get_user_details', { user_id: LIAM_ID })] }),
      at(4, read(OTHERS)),
      at(5, { text: 'That order is not yours.' }),
    ],
  },
  // 4. Out of scope: the model routes to the fallback, which transfers once.
  'scripted/retail-escalate': {
    entries: [
      at(0, AUTH),
      at(1, route('escalate')),
      at(2, { toolCalls: [call('transfer_to_human_agents', { summary: 'wants a loan' })] }),
      at(3, { text: 'A person will take over.' }),
    ],
  },
  // 6. The model names a domain the catalogue does not have: the fallback.
  'scripted/retail-unknown': {
    entries: [at(0, AUTH), at(1, route('refunds')), at(2, { text: 'A person will take over.' })],
  },
  // 7. Ping-pong between cancel and return as orders are read: stopped by the route-change bound (8).
  'scripted/retail-pingpong': {
    entries: [
      at(0, { toolCalls: [call('find_user_id_by_email', { email: YUSUF })] }),
      at(1, route('order_details')),
      ...[YP1, YD1, YP2, YD2, YP1, YD1, YP2, YD2].flatMap((o, i) => [
        at(2 + 2 * i, i === 0 ? profileThenRead('yusuf_rossi_9620', o) : read(o)),
        at(3 + 2 * i, route(o === YP1 || o === YP2 ? 'cancel_pending_order' : 'return_delivered_order')),
      ]),
      at(18, { text: 'A person will take over.' }),
    ],
  },
};

const routesOf = (events: StoredEvent[]) =>
  events
    .filter((e) => e.type === 'route.decided')
    .map((e) => [e.data.route, e.data.reasonCode, e.data.decidedBy]);
const count = (events: StoredEvent[], type: string) => events.filter((e) => e.type === type).length;

describe('retail.router: rules first, the model only where they leave a choice', { timeout: 180_000 }, () => {
  let f: RetailFixture;
  beforeAll(async () => {
    f = await createRetailFixture('retail-router', SCRIPTS);
  });
  afterAll(async () => {
    await f?.close();
  });

  async function run(script: string, message: string) {
    const handle = await f.start('retail.router', `scripted/${script}`, message);
    return {
      handle,
      done: async () => ({
        result: (await handle.result()) as AgentRunResult,
        events: await f.events(handle),
      }),
    };
  }

  it('order status: the rules route to authentication, the model chooses among the rest', async () => {
    const { done } = await run('retail-status', 'What is the status of my order?');
    const { result, events } = await done();
    expect(result.status).toBe('succeeded');
    expect(result.output).toBe(`Order ${P1} is pending.`);
    expect(routesOf(events)).toEqual([
      ['authenticate', 'route.single_candidate', 'rules'],
      ['order_details', 'route.model_choice', 'model'],
      ['order_details', 'route.model_choice', 'model'],
    ]);
    const third = events.filter((e) => e.type === 'route.decided')[2]!.data;
    expect(third.candidateCapabilities).toEqual([
      'cancel_pending_order',
      'modify_pending_order',
      'order_details',
      'user_address',
    ]);
    expect(events.filter((e) => e.type === 'model.started').map((e) => e.data.purpose)).toEqual([
      'decide',
      'route',
      'decide',
      'route',
      'decide',
    ]);
  });

  it('a write before its facts are verified is refused, then runs once they are and the customer confirms', async () => {
    const { handle, done } = await run('retail-blocked', 'Cancel my order.');
    await approvePending(handle, { timeoutMs: 60_000 });
    const { result, events } = await done();
    expect(result.status, JSON.stringify(result).slice(0, 800)).toBe('succeeded');
    const refused = events.find((e) => e.type === 'route.tool_refused')!;
    expect(refused.data).toMatchObject({ domain: 'order_details', reasonCode: 'route.tool_outside_domain' });
    expect(events.filter((e) => e.type === 'tool.completed').map((e) => e.data.tool)).toEqual([
      'retail.find_user_id_by_email',
      'retail.get_user_details',
      'retail.get_order_details',
      'retail.cancel_pending_order',
    ]);
    expect(f.db.order(P1)?.status).toBe('cancelled');
  });

  it("another customer's order is never read: refused before the profile, and when the profile does not list it", async () => {
    const { done } = await run('retail-other-order', 'What is in order #W9711842?');
    const { result, events } = await done();
    expect(result.status).toBe('succeeded');
    const denials = events
      .filter((e) => e.type === 'policy.decided' && e.data.decision === 'deny')
      .map((e) => [e.data.tool, e.data.reasonCodes]);
    expect(denials).toEqual([
      ['retail.get_order_details', ['retail.profile_not_read']],
      ['retail.get_order_details', ['retail.other_user']],
    ]);
    expect(events.filter((e) => e.type === 'tool.completed').map((e) => e.data.tool)).toEqual([
      'retail.find_user_id_by_email',
      'retail.get_user_details',
    ]);
    const facts = events.filter((e) => e.type === 'fact.recorded').map((e) => e.data.name);
    expect(facts).toContain('user.orders');
    expect(facts).not.toContain('order.id');
    // The read never ran: each is rejected before any attempt, and nothing of the order is recorded.
    const reads = events.filter((e) => String(e.data.tool) === 'retail.get_order_details');
    expect(reads.filter((e) => e.type === 'tool.failed').map((e) => e.data.status)).toEqual([
      'rejected',
      'rejected',
    ]);
    expect(JSON.stringify(events)).not.toContain('yusuf_rossi_9620');
  });

  it('out of scope: the fallback domain transfers to a person once', async () => {
    const { done } = await run('retail-escalate', 'I want a loan.');
    const { result, events } = await done();
    expect(result.status).toBe('succeeded');
    expect(routesOf(events).at(-1)).toEqual(['escalate', 'route.model_choice', 'model']);
    expect(events.filter((e) => e.type === 'tool.completed').map((e) => e.data.tool)).toEqual([
      'retail.find_user_id_by_email',
      'retail.transfer_to_human_agents',
    ]);
  });

  it('a proposed domain the catalogue does not have is never taken: the fallback is', async () => {
    const { done } = await run('retail-unknown', 'Refund me.');
    const { events } = await done();
    const last = events.filter((e) => e.type === 'route.decided').at(-1)!.data;
    expect(last).toMatchObject({
      route: 'escalate',
      reasonCode: 'route.unknown_domain',
      decidedBy: 'fallback',
      proposed: 'refunds',
    });
    expect(count(events, 'tool.completed')).toBe(1);
  });

  it('route ping-pong stops at the catalogue bound: the fallback, and no write', async () => {
    const { done } = await run('retail-pingpong', 'Cancel, no, return, no, cancel…');
    const { result, events } = await done();
    expect(result.status).toBe('succeeded');
    const decisions = events.filter((e) => e.type === 'route.decided').map((e) => e.data);
    const last = decisions.at(-1)!;
    expect(last).toMatchObject({
      route: 'escalate',
      reasonCode: 'route.change_limit',
      decidedBy: 'fallback',
      proposed: 'return_delivered_order',
    });
    expect(decisions.at(-2)!.routeChanges).toBe(8);
    expect(events.some((e) => e.type === 'tool.completed' && String(e.data.tool).includes('cancel'))).toBe(
      false,
    );
    for (const o of [YP1, YP2]) expect(f.db.order(o)?.status).toBe('pending');
  });
});
