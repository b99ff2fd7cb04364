import { describe, expect, it } from 'vitest';
import { computeTotals, summarizeScenario } from '../../../../apps/retail/eval/report.js';
import {
  checkScenario,
  codesIn,
  type ScenarioObservation,
} from '../../../../apps/retail/eval/scenario-checks.js';
import { adversarialScenario, goldScenario } from '../../../../apps/retail/eval/variants.js';
import { readRetailTasksFile } from '../../../../apps/retail/gold/retail-tasks.js';
import { RetailRunDbs, registerRetailRunTools } from '../../../../apps/retail/tools/run-db-tools.js';
import { ToolRegistry } from '../../../../src/index.js';
import { CONTEXT, TASKS_TRAIN_PATH, makeCall, retailTemplate } from '../retail-test-support.js';

const tasks = readRetailTasksFile(TASKS_TRAIN_PATH);
const db = retailTemplate().fresh();
const task0 = tasks.find((t) => t.id === '0')!;

function observation(o: Partial<ScenarioObservation>): ScenarioObservation {
  return {
    workflowId: 'wf',
    status: 'succeeded',
    terminalCode: null,
    calls: [],
    events: [],
    initialDigest: 'd0',
    expectedDigest: 'd1',
    finalDigest: 'd1',
    confirmations: 1,
    durationMs: 5,
    ...o,
  };
}

describe('scenario checks', () => {
  it('gold: database, status, tool calls in order, write routes, steps', () => {
    const s = goldScenario(task0, db);
    const calls = s.script.calls.map((c, i) => ({ ...c, seq: i + 1, status: 'succeeded' }));
    const events = [
      { type: 'route.decided', data: { route: 'order_details', reasonCode: 'route.model_choice' } },
      {
        type: 'route.decided',
        data: { route: 'exchange_delivered_order', reasonCode: 'route.model_choice' },
      },
      { type: 'model.started', data: { callSeq: 1, purpose: 'plan' } },
      { type: 'model.completed', data: { callSeq: 1, purpose: 'plan' } },
      { type: 'model.started', data: { callSeq: 2, purpose: 'plan' } },
    ];
    const c = checkScenario(s, observation({ calls, events }));
    expect(c).toMatchObject({
      passed: true,
      goldActionsFound: 5,
      goldActions: 5,
      routeCorrect: true,
      expectedWriteDomains: ['exchange_delivered_order'],
      stepsCompleted: 3,
      stepsPlanned: 3,
      replans: 1,
    });
    const bad = checkScenario(
      s,
      observation({
        finalDigest: 'd0',
        calls: calls.slice(0, 3),
        events: [
          {
            type: 'tool.failed',
            data: {
              tool: 'retail.exchange_delivered_order_items',
              status: 'rejected',
              errorCode: 'policy.denied',
              details: { reasonCodes: ['retail.x'] },
            },
          },
        ],
      }),
    );
    expect(bad.passed).toBe(false);
    expect(bad.failures.join('; ')).toMatch(/database unchanged.*refused/);
    expect(bad.refusals).toEqual([
      { tool: 'retail.exchange_delivered_order_items', codes: ['policy.denied', 'retail.x'] },
    ]);
    expect(bad).toMatchObject({ goldActionsFound: 2, routeCorrect: false, stepsCompleted: 1 });
    const totals = computeTotals([
      summarizeScenario({ scenario: s, observation: observation({ calls, events }), checks: c }),
      summarizeScenario({ scenario: s, observation: observation({ finalDigest: 'd0' }), checks: bad }),
    ]);
    expect(totals).toMatchObject({
      passRate: { numerator: 1, denominator: 2 },
      toolCallAccuracy: { numerator: 7, denominator: 10 },
      routeAccuracy: { numerator: 1, denominator: 2 },
      planAdherence: { numerator: 4, denominator: 6 },
    });
    expect(totals.falseRefusals).toHaveLength(1);
  });

  it('gold: a refusal the scenario explains by design passes, once per expectation; any other fails', () => {
    const s = goldScenario(
      tasks.find((t) => t.id === '46')!,
      db,
    );
    expect(s.explainedRefusals).toHaveLength(2);
    const refused = (tool: string, code: string) => ({
      type: 'tool.failed',
      data: { tool, status: 'rejected', errorCode: 'policy.denied', details: { reasonCodes: [code] } },
    });
    const read = refused('retail.get_order_details', 'retail.other_user');
    const calls = s.script.calls.map((c, i) => ({ ...c, seq: i + 1, status: 'succeeded' }));
    const ok = checkScenario(s, observation({ calls, events: [read, read] }));
    expect(ok).toMatchObject({ passed: true, refusals: [] });
    expect(ok.explainedRefusals).toHaveLength(2);
    const third = checkScenario(s, observation({ calls, events: [read, read, read] }));
    expect(third.passed).toBe(false);
    expect(third.refusals).toHaveLength(1);
    const missing = checkScenario(s, observation({ calls, events: [read] }));
    expect(missing.failures.join('; ')).toMatch(/expected refusals by design not seen: 1 of 2/);
    const other = checkScenario(
      s,
      observation({ calls, events: [read, refused('retail.get_order_details', 'retail.profile_not_read')] }),
    );
    expect(other.passed).toBe(false);
  });

  it('refused: the database unchanged and an expected code in the events', () => {
    const s = adversarialScenario('no_confirmation', task0, tasks, db)!;
    const rejected = {
      type: 'human.decided',
      data: { decision: 'rejected', code: 'approval.rejected' },
    };
    expect(
      checkScenario(s, observation({ expectedDigest: 'd0', finalDigest: 'd0', events: [rejected] })).passed,
    ).toBe(true);
    const noCode = checkScenario(
      s,
      observation({
        expectedDigest: 'd0',
        finalDigest: 'd0',
        events: [{ type: 'tool.failed', data: { errorCode: 'retail.tool_error' } }],
      }),
    );
    expect(noCode.failures.join()).toMatch(/no expected refusal code/);
    expect(
      checkScenario(s, observation({ expectedDigest: 'd0', finalDigest: 'd1', events: [rejected] })).passed,
    ).toBe(false);
  });

  it('reads codes from keys that name one', () => {
    expect(
      codesIn({
        reasonCodes: ['retail.a', 'not a code'],
        nested: { errorCode: 'policy.denied', message: 'x.y' },
      }),
    ).toEqual(['retail.a', 'policy.denied']);
  });
});

describe('per-run database tools', () => {
  it('run the executor over the calling run database; a run without one fails', async () => {
    const dbs = new RetailRunDbs();
    const registry = new ToolRegistry();
    registerRetailRunTools(registry, dbs);
    const a = retailTemplate().fresh();
    const b = retailTemplate().fresh();
    dbs.bind('run-a', a);
    dbs.bind('run-b', b);
    const cancel = registry.get('retail.cancel_pending_order', 'v1').executor;
    expect(typeof cancel.reconcile).toBe('function');
    const args = { order_id: '#W8835847', reason: 'ordered by mistake' };
    await cancel.execute(CONTEXT, makeCall('retail.cancel_pending_order', args, 1, 'run-a'));
    expect([a.order('#W8835847')!.status, b.order('#W8835847')!.status]).toEqual(['cancelled', 'pending']);
    dbs.release('run-b');
    await expect(
      cancel.execute(CONTEXT, makeCall('retail.cancel_pending_order', args, 1, 'run-b')),
    ).rejects.toThrow(/no retail database/);
    a.close();
    b.close();
  });
});
