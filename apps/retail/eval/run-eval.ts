import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import type { NativeConnection, WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createHarnessWorker, type ModelProvider } from '../../../src/index.js';
import { mapLimited } from '../../refund/eval/concurrency.js';
import { createRetailComposition } from '../composition.js';
import { retailDbDigest } from '../db/retail-export.js';
import { RetailDbTemplate } from '../db/retail-template.js';
import { applyGoldActions } from '../gold/gold-actions.js';
import type { RetailTask } from '../gold/retail-tasks.js';
import { retailEvalSigners } from './eval-signers.js';
import { GoldModelProvider } from './gold-model.js';
import { computeTotals, renderMarkdown, summarizeScenario, type RetailEvalReport } from './report.js';
import { runFaultScenario } from './fault-driver.js';
import { goldRoute, runScenario, type ScenarioRun } from './scenario-driver.js';
import { buildScenarios, type RetailScenario, type RetailVariant } from './variants.js';

/** The repository root (reports go to its .data/eval-retail by default). */
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface RunRetailEvalOptions {
  /** The tasks (already read and filtered) and the file they came from (for the report). */
  readonly tasks: readonly RetailTask[];
  readonly tasksFile: string;
  /** The benchmark's db.json. */
  readonly dbJsonPath: string;
  readonly variants: ReadonlySet<RetailVariant>;
  /** Run these scenarios instead of the ones generated from the tasks (tests). */
  readonly scenarios?: readonly RetailScenario[];
  /** Adversarial scenarios per kind; default 3. */
  readonly perKind?: number;
  readonly out?: string;
  readonly client: Client;
  readonly connection: NativeConnection;
  readonly namespace: string;
  readonly workflowBundle: WorkflowBundleWithSourceMap | { codePath: string };
  /** The Temporal frontend's address, for the `fault` variant's worker processes (plain connection). */
  readonly address?: string;
  /** Scenarios in flight at once (one worker serves them all); default 3, at most 8. */
  readonly concurrency?: number;
  readonly timeoutMsPerScenario?: number;
  readonly todo?: readonly string[];
  readonly log?: (line: string) => void;
}

export interface RetailEvalResult {
  readonly report: RetailEvalReport;
  readonly runs: readonly ScenarioRun[];
  readonly jsonPath: string;
  readonly markdownPath: string;
}

/** The expected digest of a scenario: its effect calls applied directly to a fresh copy (cached by calls). */
function expectedDigests(template: RetailDbTemplate): (s: RetailScenario) => Promise<string> {
  const cache = new Map<string, Promise<string>>();
  return (s) => {
    const key = JSON.stringify(s.effectCalls);
    let digest = cache.get(key);
    if (digest === undefined) {
      digest = (async () => {
        const db = template.fresh();
        try {
          const actions = s.effectCalls.map((c, i) => ({
            action_id: `${s.id}_${i}`,
            name: c.name,
            arguments: { ...c.args },
          }));
          await applyGoldActions(db, { id: s.id, actions, rewardBasis: [], raw: {} });
          return retailDbDigest(db);
        } finally {
          db.close();
        }
      })();
      cache.set(key, digest);
    }
    return digest;
  };
}

/**
 * Run every scenario of the tasks (gold and the asked adversarial variants) as real runs of
 * `retail.agent@v1` on the server, with one worker whose retail tools run over each run's own fresh
 * database; write `report.json` and `report.md` to the output folder.
 *
 * @throws setup errors (db.json, evidence store, worker); a run that misbehaves is a failed scenario.
 */
export async function runRetailEval(o: RunRetailEvalOptions): Promise<RetailEvalResult> {
  const tag = `${new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14)}-${randomUUID().slice(0, 6)}`;
  const out = resolve(o.out ?? join(repoRoot, '.data', 'eval-retail', tag));
  mkdirSync(out, { recursive: true });
  const template = RetailDbTemplate.fromJsonFile(o.dbJsonPath);
  const lookup = template.fresh();
  let scenarios: RetailScenario[];
  let initialDigest: string;
  try {
    scenarios = o.scenarios ? [...o.scenarios] : buildScenarios(o.tasks, lookup, o.variants, o.perKind ?? 3);
    initialDigest = retailDbDigest(lookup);
  } finally {
    lookup.close();
  }
  const signers = retailEvalSigners(scenarios.flatMap((s) => (s.userId === undefined ? [] : [s.userId])));
  const models: Record<string, ModelProvider> = {};
  for (const s of scenarios) models[goldRoute(s)] = new GoldModelProvider(s.script);
  const composition = await createRetailComposition({
    storeUrl: `sqlite:${join(out, 'evidence.db')}`,
    models,
    principals: signers.registry,
    env: {},
  });
  const taskQueue = `reval-${tag}`;
  const worker = await createHarnessWorker({
    connection: o.connection,
    namespace: o.namespace,
    taskQueue,
    composition,
    workflowBundle: o.workflowBundle,
  });
  const running = worker.run();
  const wanted = Number.isFinite(o.concurrency) ? Math.floor(o.concurrency!) : 3;
  const concurrency = Math.min(8, Math.max(1, wanted));
  const started = Date.now();
  const context = {
    client: o.client,
    taskQueue,
    composition,
    template,
    customers: signers.customers,
    approver: signers.approver,
    runTag: tag,
    initialDigest,
    expectedDigest: expectedDigests(template),
    ...(o.timeoutMsPerScenario ? { timeoutMs: o.timeoutMsPerScenario } : {}),
  };
  const logRun = (r: ScenarioRun, i: number): ScenarioRun => {
    const ob = r.observation;
    o.log?.(
      `[${i + 1}/${scenarios.length}] ${r.checks.passed ? 'pass' : 'FAIL'} ${r.scenario.id} ${ob.status} ${ob.durationMs} ms${r.checks.passed ? '' : `: ${r.checks.failures.join('; ')}`}`,
    );
    return r;
  };
  const inProcess = scenarios.filter((s) => s.variant !== 'fault');
  const faults = scenarios.filter((s) => s.variant === 'fault');
  let runs: ScenarioRun[];
  try {
    runs = await mapLimited(inProcess, concurrency, async (s, i) => logRun(await runScenario(s, context), i));
  } finally {
    worker.shutdown();
    await running;
    await composition.close();
  }
  // Fault scenarios one at a time, each with its own worker processes (one of them is SIGKILLed).
  if (faults.length > 0) {
    if (o.address === undefined) throw new Error('the fault variant needs the Temporal address');
    let bundlePath: string;
    if ('codePath' in o.workflowBundle) bundlePath = o.workflowBundle.codePath;
    else {
      bundlePath = join(out, 'workflow-bundle.js');
      writeFileSync(bundlePath, o.workflowBundle.code);
    }
    const faultContext = {
      ...context,
      address: o.address,
      namespace: o.namespace,
      dir: join(out, 'fault'),
      bundlePath,
      registry: signers.registry,
    };
    for (const s of faults) runs.push(logRun(await runFaultScenario(s, faultContext), runs.length));
  }
  const summaries = runs.map(summarizeScenario);
  const report: RetailEvalReport = {
    schemaVersion: 1,
    tasksFile: o.tasksFile,
    variants: [...o.variants],
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    concurrency,
    totals: computeTotals(summaries),
    scenarios: summaries,
    todo: o.todo ?? [],
  };
  const jsonPath = join(out, 'report.json');
  const markdownPath = join(out, 'report.md');
  writeFileSync(jsonPath, `${JSON.stringify(report, null, 1)}\n`);
  writeFileSync(markdownPath, renderMarkdown(report));
  return { report, runs, jsonPath, markdownPath };
}

/** The db.json an evaluation of `tasksFile` uses: `HARNESS_RETAIL_DB`, else `db.json` next to the tasks file. */
export function dbJsonPathFor(tasksFile: string, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.HARNESS_RETAIL_DB ?? join(dirname(resolve(tasksFile)), 'db.json'));
}
