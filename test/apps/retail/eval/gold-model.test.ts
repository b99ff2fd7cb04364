import { describe, expect, it } from 'vitest';
import { GoldModelProvider, type GoldScript } from '../../../../apps/retail/eval/gold-model.js';
import {
  expandCalls,
  formatObjective,
  groupSteps,
  parseObjective,
  WRITE_DOMAINS,
  type GoldCall,
} from '../../../../apps/retail/eval/gold-plan.js';
import { goldScenario } from '../../../../apps/retail/eval/variants.js';
import { readRetailTasksFile } from '../../../../apps/retail/gold/retail-tasks.js';
import { RETAIL_DOMAINS } from '../../../../apps/retail/workflow/retail-domains.js';
import { TASKS_TRAIN_PATH, retailTemplate } from '../retail-test-support.js';
import { ask, request, simulateRun, toolsOf } from './protocol-sim.js';

const tasks = readRetailTasksFile(TASKS_TRAIN_PATH);
const db = retailTemplate().fresh();
const strip = (calls: { name: string; args: Record<string, unknown> }[]): GoldCall[] =>
  calls.map((c) => ({ name: c.name.replace(/^retail\./, ''), args: c.args }));

function script(calls: GoldCall[], extra: Partial<GoldScript> = {}): GoldScript {
  return { id: 't/gold', variant: 'gold', calls, insertReads: true, goal: 'Help me.', ...extra };
}

describe('gold plan', () => {
  it('task 0: authenticate, one order_details step with the profile and product reads, the exchange', () => {
    const s = goldScenario(
      tasks.find((t) => t.id === '0')!,
      db,
    ).script;
    const { plans } = simulateRun(s);
    const steps = plans[0]!.steps;
    expect(steps.map((x) => x.capability)).toEqual([
      'authenticate',
      'order_details',
      'exchange_delivered_order',
    ]);
    expect(steps[0]!.success_condition).toEqual([{ fact: 'user.authenticated', op: 'eq', value: true }]);
    expect(steps[1]!.success_condition).toEqual([{ fact: 'order.id', op: 'eq', value: '#W2378156' }]);
    expect(steps[1]!.objective.split('; ')).toHaveLength(4);
    expect(steps[2]).toMatchObject({
      gate: 'confirmation',
      dependencies: [steps[1]!.step_id],
      failure_route: 'replan',
      max_attempts: 1,
      success_condition: [{ fact: 'order.last_action', op: 'eq', value: 'exchange_delivered_order_items' }],
    });
    expect(steps[0]!.gate).toBeUndefined();
  });

  it('inserts the order read before a write on another order, in an order_details step', () => {
    const calls: GoldCall[] = [
      { name: 'find_user_id_by_email', args: { email: 'a@b.c' } },
      { name: 'cancel_pending_order', args: { order_id: '#W1', reason: 'no longer needed' } },
      { name: 'cancel_pending_order', args: { order_id: '#W2', reason: 'no longer needed' } },
      { name: 'modify_user_address', args: { user_id: 'u1', address1: 'x' } },
      { name: 'transfer_to_human_agents', args: { summary: 'a; b {c}' } },
    ];
    const steps = groupSteps(expandCalls(calls));
    expect(steps.map((s) => [s.domain, s.calls.map((c) => c.name)])).toEqual([
      ['authenticate', ['find_user_id_by_email']],
      ['order_details', ['get_order_details']],
      ['cancel_pending_order', ['cancel_pending_order']],
      ['order_details', ['get_order_details']],
      ['cancel_pending_order', ['cancel_pending_order']],
      ['user_address', ['modify_user_address']],
      ['escalate', ['transfer_to_human_agents']],
    ]);
    const { plans, toolCalls } = simulateRun(script(calls));
    const plan = plans[0]!.steps;
    expect(plan[5]!.success_condition).toEqual([
      { fact: 'user.last_action', op: 'eq', value: 'modify_user_address' },
    ]);
    expect(plan[6]!.success_condition).toEqual([]);
    expect(strip(toolCalls)).toEqual(expandCalls(calls));
    expect(groupSteps(expandCalls(calls, { insertReads: false })).map((s) => s.domain)).toEqual([
      'authenticate',
      'cancel_pending_order',
      'user_address',
      'escalate',
    ]);
  });

  it("a read after a write step's write starts a step of its own (the step ends at its condition)", () => {
    const calls: GoldCall[] = [
      { name: 'get_order_details', args: { order_id: '#W1' } },
      { name: 'get_product_details', args: { product_id: 'p1' } },
      { name: 'cancel_pending_order', args: { order_id: '#W1', reason: 'no longer needed' } },
      { name: 'get_product_details', args: { product_id: 'p2' } },
    ];
    expect(groupSteps(expandCalls(calls)).map((s) => [s.domain, s.calls.length])).toEqual([
      ['order_details', 2],
      ['cancel_pending_order', 1],
      ['order_details', 1],
    ]);
  });

  it('reads the objective back, strings with separators and braces included', () => {
    const calls: GoldCall[] = [
      { name: 'transfer_to_human_agents', args: { summary: 'x; y {"z"} \\ }' } },
      { name: 'calculate', args: { expression: '(1 + 2) * 3' } },
      { name: 'list_all_product_types', args: {} },
    ];
    expect(parseObjective(formatObjective(calls))).toEqual(calls);
    expect(parseObjective('not a call')).toEqual([]);
  });
});

describe('the gold model over the protocol', () => {
  it('plays every train task: the run makes exactly the expanded gold calls, routes follow the plan', () => {
    for (const task of tasks) {
      const s = goldScenario(task, db).script;
      const run = simulateRun(s);
      expect(strip(run.toolCalls), task.id).toEqual(expandCalls(s.calls));
      const steps = run.plans[0]!.steps;
      expect(run.routes, task.id).toEqual(steps.map((x) => x.capability));
      for (const [i, step] of steps.entries()) {
        expect(Object.values(RETAIL_DOMAINS)).toContain(step.capability);
        expect(step.gate === 'confirmation', `${task.id} ${step.step_id}`).toBe(
          WRITE_DOMAINS.has(step.capability),
        );
        expect(step.dependencies).toEqual(i === 0 ? [] : [steps[i - 1]!.step_id]);
      }
      expect(run.final).toMatch(/handled/);
    }
  });

  it('a replan plans the remaining work only, under new step ids', () => {
    const s = goldScenario(
      tasks.find((t) => t.id === '0')!,
      db,
    ).script;
    const run = simulateRun(s, { replanAfter: 1 });
    expect(run.plans).toHaveLength(2);
    expect(run.plans[1]!.plan_id).toBe('gold-0-gold-r1');
    expect(run.plans[1]!.steps.map((x) => [x.step_id, x.capability])).toEqual([
      ['r1-s1', 'order_details'],
      ['r1-s2', 'exchange_delivered_order'],
    ]);
    expect(strip(run.toolCalls)).toEqual(expandCalls(s.calls));
  });

  it('answers a step from its objective and the calls made since the step began; text when done', () => {
    const calls: GoldCall[] = [
      { name: 'find_user_id_by_email', args: { email: 'a@b.c' } },
      { name: 'find_user_id_by_name_zip', args: { first_name: 'A', last_name: 'B', zip: '1' } },
    ];
    const sc = script(calls);
    const stepMsg = {
      role: 'user' as const,
      content: `[step: s1] [domain: authenticate] ${formatObjective(calls)}`,
    };
    const tools = toolsOf('authenticate');
    const first = ask(sc, request('decide', [{ role: 'user', content: 'hi' }, stepMsg], { tools }));
    expect(first.toolCall).toEqual({
      name: 'retail.find_user_id_by_email',
      version: 'v1',
      args: calls[0]!.args,
    });
    const after = [
      { role: 'user' as const, content: 'hi' },
      stepMsg,
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'a', ...first.toolCall! }] },
      { role: 'tool' as const, toolCallId: 'a', content: 'Error: User not found' },
    ];
    expect(ask(sc, request('decide', after, { tools })).toolCall?.name).toBe(
      'retail.find_user_id_by_name_zip',
    );
    const done = [
      ...after,
      {
        role: 'assistant' as const,
        content: '',
        toolCalls: [
          { id: 'b', name: 'retail.find_user_id_by_name_zip', version: 'v1', args: calls[1]!.args },
        ],
      },
      { role: 'tool' as const, toolCallId: 'b', content: 'u1' },
    ];
    expect(ask(sc, request('decide', done, { tools }))).toEqual({ text: 'Step done.' });
    // A tool the step does not offer: text, unless the request reports invalid calls.
    const other = request('decide', [stepMsg], { tools: toolsOf('escalate') });
    expect(ask(sc, other).toolCall).toBeUndefined();
    expect(ask(sc, { ...other, invalidToolCalls: 'report' }).toolCall?.name).toBe(
      'retail.find_user_id_by_email',
    );
  });

  it('streams through a scripted provider: plan text, tool calls, and a route that ignores its schema', async () => {
    const calls: GoldCall[] = [
      { name: 'find_user_id_by_email', args: { email: 'a@b.c' } },
      { name: 'cancel_pending_order', args: { order_id: '#W1', reason: 'no longer needed' } },
    ];
    const opts = { signal: new AbortController().signal, onEvent: () => undefined };
    const provider = new GoldModelProvider(script(calls, { insertReads: false, ignoreRouteSchema: true }));
    const plan = await provider.stream(
      request('plan', [{ role: 'user', content: '[plan] go' }], { outputSchema: { type: 'object' } }),
      opts,
    );
    expect((JSON.parse(plan.text) as { steps: unknown[] }).steps).toHaveLength(2);
    const made = [
      { role: 'user' as const, content: '[plan] go' },
      {
        role: 'assistant' as const,
        content: '',
        toolCalls: [{ id: 'a', name: 'retail.find_user_id_by_email', version: 'v1', args: calls[0]!.args }],
      },
      { role: 'tool' as const, toolCallId: 'a', content: 'u1' },
      { role: 'user' as const, content: '[route] next' },
    ];
    const enumSchema = {
      type: 'object',
      properties: { route: { type: 'string', enum: ['escalate', 'order_details', 'user_address'] } },
      required: ['route'],
      additionalProperties: false,
    };
    const route = await provider.stream(request('route', made, { outputSchema: enumSchema }), opts);
    expect(JSON.parse(route.text)).toEqual({ route: 'cancel_pending_order' });
    const decide = await provider.stream(
      request(
        'decide',
        [
          {
            role: 'user',
            content: `[step: s1] [domain: authenticate] ${formatObjective(calls.slice(0, 1))}`,
          },
        ],
        {
          tools: toolsOf('authenticate'),
        },
      ),
      opts,
    );
    expect(decide.toolCalls.map((c) => [c.name, c.args])).toEqual([
      ['retail.find_user_id_by_email', calls[0]!.args],
    ]);
    await expect(provider.stream(request('verify', made), opts)).rejects.toMatchObject({
      code: 'model.script_no_match',
    });
  });
});
