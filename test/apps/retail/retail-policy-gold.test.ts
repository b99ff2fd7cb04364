import { describe, expect, it } from 'vitest';
import { readRetailTasksFile } from '../../../apps/retail/gold/retail-tasks.js';
import { retailToolDefinitions } from '../../../apps/retail/workflow/retail-definitions.js';
import { RetailReasonCodes as R } from '../../../apps/retail/workflow/retail-reason-codes.js';
import { simulateTask, type SimulatedRun } from './retail-policy-simulation.js';
import { TASKS_TRAIN_PATH, dbJson, retailTemplate } from './retail-test-support.js';

const tasks = readRetailTasksFile(TASKS_TRAIN_PATH);
const writes = new Set(
  retailToolDefinitions()
    .filter((d) => d.effect === 'write')
    .map((d) => d.name),
);

/**
 * Gold actions of tasks-train.json that retail.policy@v2 refuses, by task: tasks 46 and 47 read two
 * order ids that exist nowhere (the benchmark's tool answers "Order not found"); they are not in the
 * customer's profile, so the policy does not let the read run (`retail.other_user`). (Task 105's
 * exchange passes the policy and is refused by the tool: its gift card cannot pay the difference.)
 */
const EXPECTED_REFUSALS: Record<string, string[]> = {
  '46': [
    '46_1 retail.get_order_details: deny retail.other_user',
    '46_2 retail.get_order_details: deny retail.other_user',
  ],
  '47': [
    '47_1 retail.get_order_details: deny retail.other_user',
    '47_2 retail.get_order_details: deny retail.other_user',
  ],
};

async function simulateAll(): Promise<Map<string, SimulatedRun>> {
  const initial = dbJson();
  const runs = new Map<string, SimulatedRun>();
  for (const task of tasks) {
    const db = retailTemplate().fresh();
    try {
      runs.set(task.id, await simulateTask(db, initial, task));
    } finally {
      db.close();
    }
  }
  return runs;
}

describe('retail.policy@v2 over the gold actions of tasks-train.json', () => {
  it('allows every gold read and asks confirmation for every gold write, once authenticated and the order read', async () => {
    const runs = await simulateAll();
    const refusals: Record<string, string[]> = {};
    let decided = 0;
    let confirmations = 0;
    for (const [taskId, run] of runs) {
      for (const { actionId, tool, decision } of run.decisions) {
        decided += 1;
        const expected = writes.has(tool)
          ? ['require_confirmation', R.customerConfirmation]
          : ['allow', R.readAllowed];
        if (expected[0] === 'require_confirmation') confirmations += 1;
        if (decision.decision !== expected[0] || decision.reasonCodes[0] !== expected[1]) {
          (refusals[taskId] ??= []).push(
            `${actionId} ${tool}: ${decision.decision} ${decision.reasonCodes.join(',')}`,
          );
        }
      }
    }
    expect(refusals).toEqual(EXPECTED_REFUSALS);
    expect(decided).toBe(tasks.reduce((n, t) => n + t.actions.length, 0));
    expect(confirmations).toBe(120);
  }, 60_000);

  it('authenticates the task’s customer in every task with a write, and ends on the facts of its last write', async () => {
    const runs = await simulateAll();
    for (const task of tasks) {
      const run = runs.get(task.id)!;
      const last = [...task.actions].reverse().find((a) => writes.has(`retail.${a.name}`));
      if (last === undefined) continue;
      expect([task.id, run.facts['user.authenticated']]).toEqual([task.id, true]);
      if (last.name === 'modify_user_address')
        expect(run.facts['user.last_action']).toBe('modify_user_address');
      else if (run.facts['order.id'] === last.arguments.order_id && task.id !== '105')
        expect([task.id, run.facts['order.last_action']]).toEqual([task.id, last.name]);
    }
  }, 60_000);
});
