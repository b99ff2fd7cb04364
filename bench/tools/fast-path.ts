/**
 * `npm run bench:fast` (`--reps N`, `--runs N`, `--steps N`, `--disk`): the fast path (issue 40) against its
 * baselines, five arms on one private dev server per repetition, interleaved run by run:
 * - `harness`: `bench.steps@v1` (model call + `bench.noop` as a regular activity);
 * - `harness-fast`: `bench.fast_steps@v1` (model call + `bench.fast_noop`, a fast read: local activity);
 * - `harness-fast-model`: `bench.fast_steps@v1` on a fast model route of a routes file (both the model
 *   call and the fast read local activities);
 * - `bare`: `bareSteps` with regular activities;
 * - `bare-local`: `bareSteps` with the tool call as a local activity.
 * Per arm: step latency p50/p99 (server clock, model call k scheduled -> k+1 scheduled), history
 * events and bytes per step (between the first and last model call), and the dev server's CPU per
 * step (its process CPU around each run, runs one at a time). Prints a table on stdout and writes
 * bench/results/fast-path-<timestamp>.json. The LangGraph peer is measured by bench/tools/peer.ts.
 * See BENCHMARKS.md, "Fast path".
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { BENCH_TASK_MESSAGE, benchRoute } from '../../apps/bench/bench-script.js';
import { BENCH_NOOP_TOOL } from '../../apps/bench/bench-noop-tool.js';
import { startAgentRun } from '../../src/client/start-run.js';
import { projectRoot } from '../../src/devserver/config.js';
import { bundleWorkflows } from '../../src/worker/bundle.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { BareStepsResult } from '../workflows/bare-steps.js';
import { benchBudget } from '../lib/arms.js';
import { processCpuMs } from '../lib/cpu.js';
import { analyzeHistory } from '../lib/history.js';
import { machineInfo } from '../lib/machine.js';
import { progress } from '../lib/progress.js';
import { createRig, type Rig } from '../lib/rig.js';
import { benchModelRoute, benchModelRoutes, writeScriptedRoutesFile } from '../lib/scripted-routes-file.js';
import { median, quantile } from '../lib/stats.js';
import { benchWorkflowsPath } from '../lib/workflows-path.js';

const ARMS = ['harness', 'harness-fast', 'harness-fast-model', 'bare', 'bare-local'] as const;
type FastArm = (typeof ARMS)[number];

interface ArmSamples {
  lat: number[];
  eventsPerStep: number[];
  bytesPerStep: number[];
  serverCpuPerStep: number[];
  /** The run's wall time (first to last history event) divided by its steps. */
  wallPerStep: number[];
}

function intFlag(argv: readonly string[], name: string, fallback: number): number {
  const i = argv.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(argv[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} needs a positive integer`);
  return v;
}

function start(
  rig: Rig,
  arm: FastArm,
  steps: number,
  taskQueue: string,
  id: string,
): Promise<WorkflowHandle> {
  if (arm !== 'bare' && arm !== 'bare-local') {
    const fast = arm !== 'harness';
    return startAgentRun(rig.client, {
      taskQueue,
      workflowId: id,
      input: {
        schemaVersion: 1,
        profile: { name: fast ? 'bench.fast_steps' : 'bench.steps', version: 'v1' },
        toolRegistryDigest: rig.composition.registry.snapshot().digest,
        // The fast model arm's route is a routes-file version declaring `fast` (docs/models.md).
        modelRoute: arm === 'harness-fast-model' ? benchModelRoute(steps) : benchRoute(steps, fast),
        configDigest: rig.composition.configDigest,
        task: { message: BENCH_TASK_MESSAGE },
        budget: benchBudget(steps),
        continueAsNewAfterEvents: 50_000,
      },
    });
  }
  return rig.client.workflow.start('bareSteps', {
    taskQueue,
    workflowId: id,
    args: [
      {
        runId: id,
        modelRoute: benchRoute(steps),
        message: BENCH_TASK_MESSAGE,
        toolKey: `${BENCH_NOOP_TOOL}@v1`,
        maxModelCalls: steps + 1,
        ...(arm === 'bare-local' ? { localToolMs: 2_000 } : {}),
      },
    ],
  });
}

/** @throws Error when the run did not end as the bench expects. */
async function expectDone(handle: WorkflowHandle, arm: FastArm, steps: number): Promise<void> {
  const r = (await handle.result()) as AgentRunResult | BareStepsResult;
  const ok = 'status' in r ? r.status === 'succeeded' && r.output === 'done' : r.toolCalls === steps;
  if (!ok)
    throw new Error(`${arm} run ${handle.workflowId} did not finish as expected: ${JSON.stringify(r)}`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const reps = intFlag(argv, '--reps', 1);
  const runs = intFlag(argv, '--runs', 5);
  const steps = intFlag(argv, '--steps', 10);
  if (steps < 2) throw new Error('--steps needs at least 2 (a step is measured between two model calls)');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const machine = await machineInfo();
  progress(`${machine.nproc} CPU ${machine.cpuModel}; ${reps} reps x ${runs} runs of ${steps} steps per arm`);
  const bundle = await bundleWorkflows({ workflowsPath: benchWorkflowsPath });
  // As `npm run bench`: the server's db and the stores on tmpfs unless `--disk`.
  const dataDir = argv.includes('--disk') || !existsSync('/dev/shm') ? tmpdir() : '/dev/shm';
  const acc = Object.fromEntries(
    ARMS.map((a) => [
      a,
      { lat: [], eventsPerStep: [], bytesPerStep: [], serverCpuPerStep: [], wallPerStep: [] },
    ]),
  ) as unknown as Record<FastArm, ArmSamples>;
  // The fast model arm's routes: a routes file of scripted routes (only a pinned route can be fast).
  const routes = writeScriptedRoutesFile(
    mkdtempSync(join(dataDir, 'fast-routes-')),
    benchModelRoutes([steps]),
  );
  for (let rep = 0; rep < reps; rep++) {
    const rig = await createRig(bundle, [steps], dataDir, (l) => progress(`  server: ${l}`), {
      HARNESS_MODEL_ROUTES: routes,
    });
    try {
      const queue = `fast-r${rep}`;
      const worker = await rig.startWorker(queue);
      for (let i = 0; i < runs; i++) {
        const order = [...ARMS.slice((rep + i) % ARMS.length), ...ARMS.slice(0, (rep + i) % ARMS.length)];
        for (const arm of order) {
          const cpu0 = processCpuMs(rig.server.dir);
          const handle = await start(rig, arm, steps, queue, `fast-${arm}-r${rep}-${i}`);
          await expectDone(handle, arm, steps);
          const cpu = processCpuMs(rig.server.dir) - cpu0;
          const history = await handle.fetchHistory();
          const stats = analyzeHistory(history);
          const first = stats.marks[0]!;
          const last = stats.marks[stats.marks.length - 1]!;
          const measured = stats.marks.length - 1;
          acc[arm].lat.push(...stats.stepLatenciesMs);
          acc[arm].eventsPerStep.push((last.events - first.events) / measured);
          acc[arm].bytesPerStep.push((last.bytes - first.bytes) / measured);
          acc[arm].serverCpuPerStep.push(cpu / steps);
          acc[arm].wallPerStep.push(stats.wallMs / steps);
        }
      }
      await worker.stop();
    } finally {
      await rig.close();
    }
  }
  const rows = ARMS.map((arm) => {
    const a = acc[arm];
    return {
      arm,
      p50Ms: quantile(a.lat, 0.5),
      p99Ms: quantile(a.lat, 0.99),
      eventsPerStep: median(a.eventsPerStep),
      bytesPerStep: median(a.bytesPerStep),
      serverCpuMsPerStep: median(a.serverCpuPerStep),
      wallMsPerStep: median(a.wallPerStep),
    };
  });
  const by = Object.fromEntries(rows.map((r) => [r.arm, r])) as Record<FastArm, (typeof rows)[number]>;
  const lines = [
    '| arm | p50 per step (ms) | p99 per step (ms) | run wall per step (ms) | events per step | bytes per step | server CPU per step (ms) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.arm} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${r.wallMsPerStep.toFixed(1)} | ${r.eventsPerStep.toFixed(1)} | ${Math.round(r.bytesPerStep)} | ${r.serverCpuMsPerStep.toFixed(1)} |`,
    ),
    '',
    // Every step of the fast model arm runs inside one workflow task: its markers share that task's
    // completion time, so its p50 from history is 0; the run's wall time per step is the comparable figure.
    `harness-fast-model wall per step / bare: ${(by['harness-fast-model'].wallMsPerStep / by.bare.wallMsPerStep).toFixed(2)}x (target <= 0.5x)`,
    `harness-fast-model wall per step / bare-local: ${(by['harness-fast-model'].wallMsPerStep / by['bare-local'].wallMsPerStep).toFixed(2)}x (target <= 1.1x)`,
    `harness-fast-model bytes per step / bare: ${(by['harness-fast-model'].bytesPerStep / by.bare.bytesPerStep).toFixed(2)}x (target <= 1x)`,
    `harness-fast (model call regular) p50 / bare p50: ${(by['harness-fast'].p50Ms / by.bare.p50Ms).toFixed(2)}x, wall per step: ${(by['harness-fast'].wallMsPerStep / by.bare.wallMsPerStep).toFixed(2)}x`,
  ];
  console.log(lines.join('\n'));
  const dir = resolve(projectRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `fast-path-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ machine, reps, runs, steps, rows, samples: acc }, null, 1)}\n`);
  console.log(`\nresults: ${file}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
