import { describe, expect, it } from 'vitest';
import { parseRetailEvalArgs } from '../../../../apps/retail/eval/eval-args.js';
import { isWriteTool, type GoldCall } from '../../../../apps/retail/eval/gold-plan.js';
import {
  ADVERSARIAL_VARIANTS,
  buildScenarios,
  codeExpected,
  taskMessage,
  withProfileRead,
  type RetailVariant,
} from '../../../../apps/retail/eval/variants.js';
import { readRetailTasksFile } from '../../../../apps/retail/gold/retail-tasks.js';
import { TASKS_TRAIN_PATH, retailTemplate } from '../retail-test-support.js';
import { simulateRun } from './protocol-sim.js';

const tasks = readRetailTasksFile(TASKS_TRAIN_PATH);
const db = retailTemplate().fresh();
const all = new Set<RetailVariant>(['gold', ...ADVERSARIAL_VARIANTS]);

describe('variant generator', () => {
  const scenarios = buildScenarios(tasks, db, all);
  const of = (v: RetailVariant) => scenarios.filter((s) => s.variant === v);

  it('is deterministic: one gold scenario per task, up to three of each adversarial kind, each kind present', () => {
    expect(JSON.stringify(buildScenarios(tasks, db, all))).toBe(JSON.stringify(scenarios));
    expect(of('gold')).toHaveLength(tasks.length);
    for (const v of ADVERSARIAL_VARIANTS) {
      expect(of(v).length, v).toBeGreaterThan(0);
      expect(of(v).length, v).toBeLessThanOrEqual(3);
    }
    expect(new Set(scenarios.map((s) => s.id)).size).toBe(scenarios.length);
    expect(buildScenarios(tasks, db, new Set(['no_confirmation']), 1)).toHaveLength(1);
  });

  it('every scenario knows its customer, its message and what it expects', () => {
    for (const s of scenarios) {
      // Gold tasks whose actions never name the user (no action, or a transfer only) run anonymous.
      if (s.variant !== 'gold') expect(s.userId, s.id).toBeDefined();
      expect(s.message.length).toBeGreaterThan(10);
      if (s.variant === 'gold') {
        expect(s.expected).toEqual({ kind: 'gold' });
        expect(s.effectCalls).toEqual(s.goldCalls);
      } else {
        expect(s.expected.kind).toBe('refused');
        expect(s.effectCalls).toEqual(s.variant === 'repeat_modification' ? s.script.calls.slice(2, 3) : []);
      }
    }
    expect(of('gold').filter((s) => s.userId === undefined).length).toBeLessThanOrEqual(3);
    // Gold actions without an authentication get one (a read) first, then the customer's profile (it
    // lists the orders the policy lets the run read): task 88 is one cancel.
    const t88 = of('gold').find((s) => s.taskId === '88')!;
    expect(t88.script.calls.map((c) => c.name)).toEqual([
      'find_user_id_by_email',
      'get_user_details',
      'cancel_pending_order',
    ]);
    expect(t88.script.calls[1]!.args).toEqual({ user_id: t88.userId });
    expect(taskMessage(tasks[0]!)).toMatch(/#W2378156.*Yusuf Rossi/);
  });

  it('gives each kind its shape', () => {
    for (const s of of('before_auth')) {
      expect(isWriteTool(s.script.calls[0]!.name)).toBe(true);
      expect(s.script.insertReads).toBe(false);
      expect(simulateRun(s.script).plans[0]!.steps[0]!.objective.startsWith(s.script.calls[0]!.name)).toBe(
        true,
      );
    }
    for (const s of of('no_confirmation')) expect(s.decision).toBe('reject');
    for (const s of of('delivered_modify')) {
      const order = db.order(s.script.calls[2]!.args.order_id as string)!;
      expect(s.script.calls[2]!.name).toBe('modify_pending_order_address');
      expect([order.status, order.user_id]).toEqual(['delivered', s.userId]);
    }
    for (const s of of('second_user')) {
      expect(s.script.calls[1]!.args.user_id).toBe(s.userId);
      const other = s.script.calls[2]!.args.user_id as string;
      expect(other).not.toBe(s.userId);
      const order = db.order(s.script.calls[3]!.args.order_id as string)!;
      expect([order.user_id, order.status]).toEqual([other, 'pending']);
    }
    for (const s of of('repeat_modification')) {
      expect(s.script.calls.slice(1).map((c) => c.name)).toEqual([
        'get_user_details',
        'modify_pending_order_items',
        'get_order_details',
        'modify_pending_order_items',
      ]);
      // The second modification is a step of its own: routed again, into a domain it cannot enter.
      const steps = simulateRun(s.script).plans[0]!.steps.map((x) => x.capability);
      expect(steps.slice(-2)).toEqual(['order_details', 'modify_pending_order']);
    }
    for (const s of of('route_without_facts')) {
      expect(s.script).toMatchObject({ insertReads: false, ignoreRouteSchema: true });
      // The route question after authentication names the write domain: no order was read.
      const run = simulateRun(s.script);
      expect(run.routes[2]).toBe(run.plans[0]!.steps[2]!.capability);
      expect(run.toolCalls.some((c) => c.name === 'retail.get_order_details')).toBe(false);
    }
  });

  it('fault: gold runs of the first tasks with a write on an order, expected like gold', () => {
    const faults = buildScenarios(tasks, db, new Set(['fault']));
    expect(faults.map((s) => s.id)).toEqual(['0/fault', '1/fault', '2/fault']);
    for (const s of faults) {
      expect(s.expected).toEqual({ kind: 'gold' });
      expect(s.effectCalls).toEqual(s.goldCalls);
    }
  });

  it("expects the policy to refuse by design the gold reads of orders outside the customer's profile", () => {
    const explained = of('gold').filter((s) => s.explainedRefusals.length > 0);
    expect(explained.map((s) => s.taskId)).toEqual(['46', '47']);
    for (const s of explained)
      expect(s.explainedRefusals.map((r) => [r.tool, r.code])).toEqual([
        ['retail.get_order_details', 'retail.other_user'],
        ['retail.get_order_details', 'retail.other_user'],
      ]);
  });

  it('reads the profile once, right after the authentication, and only when an order follows', () => {
    const auth: GoldCall = { name: 'find_user_id_by_email', args: { email: 'a@b.c' } };
    const read: GoldCall = { name: 'get_order_details', args: { order_id: '#W1' } };
    const profile: GoldCall = { name: 'get_user_details', args: { user_id: 'u1' } };
    expect(withProfileRead([auth, read], 'u1')).toEqual([auth, profile, read]);
    expect(withProfileRead([auth, profile, read], 'u1')).toEqual([auth, profile, read]);
    expect(withProfileRead([read, auth], 'u1')).toEqual([read, auth]);
    expect(withProfileRead([auth], 'u1')).toEqual([auth]);
    expect(withProfileRead([auth, read], undefined)).toEqual([auth, read]);
  });

  it('matches refusal codes exactly or by prefix, never the benchmark tool error', () => {
    expect(codeExpected('retail.other_user', ['retail.*'])).toBe(true);
    expect(codeExpected('retail.tool_error', ['retail.*'])).toBe(false);
    expect(codeExpected('route.excluded_domain', ['route.excluded_domain'])).toBe(true);
    expect(codeExpected('route.model_choice', ['route.excluded_domain', 'retail.*'])).toBe(false);
  });
});

describe('eval:retail arguments', () => {
  it('reads the tasks file, tasks, limit, variants, json and out', () => {
    const a = parseRetailEvalArgs([
      't.json',
      '--task',
      '1',
      '--task=2,3',
      '--limit',
      '2',
      '--variants',
      'gold,adversarial,fault',
      '--json',
      '--out=o',
    ]);
    expect(a).toMatchObject({
      tasksFile: 't.json',
      taskIds: ['1', '2', '3'],
      limit: 2,
      json: true,
      out: 'o',
    });
    expect([...(a as unknown as { variants: Set<string> }).variants]).toEqual([
      'gold',
      ...ADVERSARIAL_VARIANTS,
      'fault',
    ]);
    expect(parseRetailEvalArgs(['t.json'])).toMatchObject({
      variants: new Set(['gold']),
      json: false,
    });
  });

  it('refuses what it does not know', () => {
    for (const bad of [
      [],
      ['a', 'b'],
      ['t.json', '--limit', '0'],
      ['t.json', '--variants', 'nope'],
      ['t.json', '--x'],
    ]) {
      expect(parseRetailEvalArgs(bad)).toHaveProperty('usage');
    }
  });
});
