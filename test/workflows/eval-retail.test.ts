import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bundleWorkflows } from '../../src/index.js';
import { RETAIL_WORKFLOWS_PATH } from '../../apps/retail/eval/eval-command.js';
import { runRetailEval } from '../../apps/retail/eval/run-eval.js';
import { buildScenarios } from '../../apps/retail/eval/variants.js';
import { readRetailTasksFile } from '../../apps/retail/gold/retail-tasks.js';
import { DB_JSON_PATH, TASKS_TRAIN_PATH, retailTemplate } from '../apps/retail/retail-test-support.js';
import { connectTestTemporal, type TestTemporal } from '../support/temporal.js';

/**
 * `npm run eval:retail`'s library form on the real server with the real routed profile
 * (`retail.agent@v2`, `retail.policy@v2`): gold runs (one with an authentication the gold actions lack),
 * adversarial variants refused with the database unchanged, and a fault run whose worker process is
 * SIGKILLed right after its write committed.
 */
describe('retail evaluation (retail.agent@v2)', () => {
  let t: TestTemporal;
  let bundle: Awaited<ReturnType<typeof bundleWorkflows>>;
  beforeAll(async () => {
    t = await connectTestTemporal();
    bundle = await bundleWorkflows({ workflowsPath: RETAIL_WORKFLOWS_PATH });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('gold, adversarial and fault scenarios pass; the measures are full', async () => {
    const tasks = readRetailTasksFile(TASKS_TRAIN_PATH);
    const db = retailTemplate().fresh();
    const all = buildScenarios(
      tasks,
      db,
      new Set([
        'gold',
        'no_confirmation',
        'repeat_modification',
        'route_without_facts',
        'second_user',
        'fault',
      ]),
      1,
    );
    db.close();
    const wanted = [
      '0/gold',
      '88/gold',
      '0/no_confirmation',
      '3/repeat_modification',
      '0/route_without_facts',
      '0/second_user',
      '0/fault',
    ];
    const scenarios = all.filter((s) => wanted.includes(s.id));
    expect(scenarios.map((s) => s.id).sort()).toEqual([...wanted].sort());
    const r = await runRetailEval({
      tasks,
      tasksFile: TASKS_TRAIN_PATH,
      dbJsonPath: DB_JSON_PATH,
      variants: new Set(['gold']),
      scenarios,
      out: mkdtempSync(join(tmpdir(), 'reval-real-')),
      client: t.client,
      connection: t.nativeConnection,
      namespace: t.namespace,
      address: inject('temporalAddress'),
      workflowBundle: bundle,
      concurrency: 3,
    });
    expect(r.report.scenarios.map((s) => [s.id, s.passed, s.failures])).toEqual(
      r.report.scenarios.map((s) => [s.id, true, []]),
    );
    const totals = r.report.totals;
    expect(totals.toolCallAccuracy.value).toBe(1);
    expect(totals.routeAccuracy.value).toBe(1);
    expect(totals.falseRefusals).toEqual([]);
    const codes = new Map(r.report.scenarios.map((s) => [s.id, s.codes]));
    expect(codes.get('0/no_confirmation')).toContain('approval.rejected');
    expect(codes.get('0/second_user')).toContain('retail.other_user');
  });
});
