import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bundleWorkflows } from '../../src/index.js';
import { runRetailEval } from '../../apps/retail/eval/run-eval.js';
import { EXPECTED_REFUSAL_CODES, faultScenario, goldScenario } from '../../apps/retail/eval/variants.js';
import { readRetailTasksFile } from '../../apps/retail/gold/retail-tasks.js';
import { DB_JSON_PATH, TASKS_TRAIN_PATH, retailTemplate } from '../apps/retail/retail-test-support.js';
import { connectTestTemporal, type TestTemporal } from '../support/temporal.js';

/**
 * The retail evaluation's plumbing on the real server, against a TEST-ONLY stand-in of the routed
 * profile (test/support/workflow/retail-standin-workflows.ts: a goal profile whose instructions are
 * one step marker, task 88's cancel): per-run databases bound by workflow id, runs signed by the
 * task's customer, the customer's signed confirmation or rejection, digests and the report.
 */
describe('retail evaluation (stand-in profile)', () => {
  let t: TestTemporal;
  let bundle: Awaited<ReturnType<typeof bundleWorkflows>>;
  beforeAll(async () => {
    t = await connectTestTemporal();
    bundle = await bundleWorkflows({
      workflowsPath: fileURLToPath(
        new URL('../support/workflow/retail-standin-workflows.ts', import.meta.url),
      ),
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a confirmed gold write passes on the database; a rejected one leaves it unchanged', async () => {
    const tasks = readRetailTasksFile(TASKS_TRAIN_PATH);
    const task = tasks.find((x) => x.id === '88')!;
    const db = retailTemplate().fresh();
    const gold = goldScenario(task, db);
    db.close();
    const rejected = {
      ...gold,
      id: '88/no_confirmation',
      variant: 'no_confirmation' as const,
      script: { ...gold.script, id: '88/no_confirmation', variant: 'no_confirmation' },
      decision: 'reject' as const,
      expected: { kind: 'refused' as const, codes: EXPECTED_REFUSAL_CODES.no_confirmation },
      effectCalls: [],
    };
    const out = mkdtempSync(join(tmpdir(), 'reval-'));
    const lines: string[] = [];
    const r = await runRetailEval({
      tasks: [task],
      tasksFile: TASKS_TRAIN_PATH,
      dbJsonPath: DB_JSON_PATH,
      variants: new Set(['gold', 'no_confirmation']),
      scenarios: [gold, rejected],
      out,
      client: t.client,
      connection: t.nativeConnection,
      namespace: t.namespace,
      workflowBundle: bundle,
      concurrency: 2,
      log: (l) => lines.push(l),
    });
    const [g, n] = r.report.scenarios;
    expect(g).toMatchObject({
      id: '88/gold',
      status: 'succeeded',
      dbMatches: true,
      confirmations: 1,
      passed: true,
    });
    expect(g!.goldActionsFound).toBe(1);
    expect(r.report.totals.toolCallAccuracy).toMatchObject({ numerator: 1, denominator: 1 });
    expect(r.report.totals.falseRefusals).toEqual([]);
    expect(n).toMatchObject({ id: '88/no_confirmation', dbMatches: true, confirmations: 1 });
    expect(n!.codes).toContain('approval.rejected');
    expect(n!.passed).toBe(true);
    expect(lines).toHaveLength(2);
    expect(JSON.parse(readFileSync(r.jsonPath, 'utf8'))).toMatchObject({ schemaVersion: 1 });
    expect(readFileSync(r.markdownPath, 'utf8')).toMatch(/Tool-call accuracy/);
  });

  it('fault: the worker process is SIGKILLed after the write committed; a second one finishes the run, the write applied once', async () => {
    const tasks = readRetailTasksFile(TASKS_TRAIN_PATH);
    const task = tasks.find((x) => x.id === '88')!;
    const db = retailTemplate().fresh();
    const fault = faultScenario(task, db)!;
    db.close();
    const out = mkdtempSync(join(tmpdir(), 'reval-fault-'));
    const r = await runRetailEval({
      tasks: [task],
      tasksFile: TASKS_TRAIN_PATH,
      dbJsonPath: DB_JSON_PATH,
      variants: new Set(['fault']),
      scenarios: [fault],
      out,
      client: t.client,
      connection: t.nativeConnection,
      namespace: t.namespace,
      address: inject('temporalAddress'),
      workflowBundle: bundle,
    });
    const [f] = r.report.scenarios;
    expect(f, JSON.stringify(f)).toMatchObject({
      id: '88/fault',
      status: 'succeeded',
      dbMatches: true,
      passed: true,
    });
    expect(f!.tools).toEqual(['cancel_pending_order:succeeded']);
    expect(existsSync(join(out, 'fault', '88-fault', 'killed'))).toBe(true);
  });
});
