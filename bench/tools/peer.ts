/**
 * The peer side by side: `npx tsx bench/tools/peer.ts [--reps N] [--disk]` runs the bench's N-step
 * tool loop in six arms, in one process and one run, runs interleaved:
 *
 * - `harness` and `bare`: the bench's two Temporal arms (bench/lib/arms.ts) on a private dev server
 *   per repetition (bench/lib/rig.ts, the settings of temporal-dev.yml, tmpfs unless `--disk`);
 * - `lg-sync`: the LangGraph JS loop (bench/peer/langgraph-loop.ts), in-process scripted model and
 *   `bench.noop`, transcript in the state, `SqliteSaver` on a fresh file per run, durability `sync`
 *   (a step's checkpoint is written before the next step starts, as Temporal records an activity's
 *   result before the workflow goes on);
 * - `lg-async`: the same with LangGraph's default durability `async` (the checkpoint is written while
 *   the next step runs);
 * - `lg-lean`: `lg-sync` with no transcript in the state (last decision and counters only);
 * - `lg-acts`: `lg-sync` whose nodes call the bare arm's own `callModel` and `runTool` activity
 *   functions (same evidence store), so the only difference to `bare` is the orchestration.
 *
 * Per arm and run size (1, 10, 50 steps): steps per second of one run at a time (client clock: start
 * to result, or `invoke`), bytes persisted per step, and CPU per step (this process; the dev server).
 * Prints tables and writes bench/results/peer-<timestamp>.json. BENCHMARKS.md, "A peer side by side:
 * LangGraph JS", has the results and how to read them.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { projectRoot } from '../../src/devserver/config.js';
import { bundleWorkflows } from '../../src/worker/bundle.js';
import { harnessActivities } from '../../src/worker/harness-worker.js';
import { expectDone, startRun } from '../lib/arms.js';
import { ownCpuMs, processCpuMs } from '../lib/cpu.js';
import { historyBytes } from '../lib/history.js';
import { machineInfo } from '../lib/machine.js';
import { progress } from '../lib/progress.js';
import { createRig, type Rig } from '../lib/rig.js';
import { median } from '../lib/stats.js';
import { benchWorkflowsPath } from '../lib/workflows-path.js';
import {
  activitySteps,
  compileLoop,
  fileBytes,
  inProcessSteps,
  openSaver,
  persistedBytes,
  runLoop,
  type Durability,
  type StepFunctions,
} from '../peer/langgraph-loop.js';

const ARMS = ['harness', 'bare', 'lg-sync', 'lg-async', 'lg-lean', 'lg-acts'] as const;
type PeerArm = (typeof ARMS)[number];
const TEMPORAL_ARMS: readonly PeerArm[] = ['harness', 'bare'];

/** Run size -> runs per arm per repetition. */
const PLAN: Readonly<Record<number, number>> = { 1: 5, 10: 3, 50: 1 };
/** Longer runs of the LangGraph arms only (how their per-step bytes and time grow; the Temporal arms' growth is section 2 of `npm run bench`). */
const PEER_ONLY_PLAN: Readonly<Record<number, number>> = { 200: 1 };
const PEER_ARMS = ARMS.filter((a) => !TEMPORAL_ARMS.includes(a));

interface Sample {
  readonly rep: number;
  readonly arm: PeerArm;
  readonly steps: number;
  readonly wallMs: number;
  /** Temporal arms: encoded history (what the server keeps as the run's history). */
  readonly historyBytes: number;
  /** Rows the run left in the evidence store (harness, bare, lg-acts): column bytes. */
  readonly evidenceBytes: number;
  /** LangGraph arms: checkpoint + write rows of the thread (blobs and key columns). */
  readonly checkpointerBytes: number;
  /** LangGraph arms: `checkpoint` + `metadata` + `value` blobs only. */
  readonly checkpointerBlobBytes: number;
  readonly checkpointRows: number;
  readonly writeRows: number;
  /** LangGraph arms: the run's own SQLite file after `wal_checkpoint(TRUNCATE)`. */
  readonly fileBytes: number;
  readonly ownCpuMs: number;
  readonly serverCpuMs: number;
}

function flag(argv: readonly string[], name: string, fallback: number): number {
  const i = argv.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(argv[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} needs a positive integer`);
  return v;
}

/** Column bytes of every row a run left in the evidence store's per-run tables. */
function evidenceBytesOf(db: Database.Database, runId: string): number {
  const tables = (
    db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]
  ).map((t) => t.name);
  let total = 0;
  for (const t of tables) {
    const cols = (db.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((c) => c.name);
    if (!cols.includes('run_id')) continue;
    const sum = cols.map((c) => `coalesce(length(${c}), 0)`).join(' + ');
    const row = db.prepare(`SELECT coalesce(sum(${sum}), 0) AS b FROM ${t} WHERE run_id = ?`).get(runId) as {
      b: number;
    };
    total += row.b;
  }
  return total;
}

interface PeerContext {
  readonly rig: Rig;
  readonly dir: string;
  readonly evidence: Database.Database;
  readonly activities: ReturnType<typeof harnessActivities>;
  readonly taskQueue: string;
}

async function runTemporal(ctx: PeerContext, arm: 'harness' | 'bare', steps: number, id: string) {
  const t0 = performance.now();
  const handle = await startRun(ctx.rig, arm, steps, ctx.taskQueue, id);
  await expectDone(handle, arm, steps);
  const wallMs = performance.now() - t0;
  const bytes = historyBytes(await handle.fetchHistory());
  return { wallMs, historyBytes: bytes, evidenceBytes: evidenceBytesOf(ctx.evidence, id) };
}

async function runPeer(ctx: PeerContext, arm: PeerArm, steps: number, id: string) {
  const durability: Durability = arm === 'lg-async' ? 'async' : 'sync';
  const fns: StepFunctions = arm === 'lg-acts' ? activitySteps(ctx.activities, steps) : inProcessSteps(steps);
  const file = join(ctx.dir, `${id}.db`);
  const { saver, db } = openSaver(file);
  try {
    const graph = compileLoop(saver, fns, steps, arm !== 'lg-lean');
    const t0 = performance.now();
    await runLoop(graph, steps, id, durability);
    const wallMs = performance.now() - t0;
    const p = persistedBytes(db, id);
    return {
      wallMs,
      checkpointerBytes: p.rowBytes,
      checkpointerBlobBytes: p.checkpointBytes + p.writeBytes,
      checkpointRows: p.checkpointRows,
      writeRows: p.writeRows,
      fileBytes: fileBytes(db, file),
      evidenceBytes: arm === 'lg-acts' ? evidenceBytesOf(ctx.evidence, id) : 0,
    };
  } finally {
    db.close();
    rmSync(file, { force: true });
    rmSync(`${file}-wal`, { force: true });
    rmSync(`${file}-shm`, { force: true });
  }
}

async function runOne(
  ctx: PeerContext,
  rep: number,
  arm: PeerArm,
  steps: number,
  id: string,
): Promise<Sample> {
  const cpu0 = ownCpuMs();
  const srv0 = processCpuMs(ctx.rig.server.dir);
  const zero = {
    historyBytes: 0,
    evidenceBytes: 0,
    checkpointerBytes: 0,
    checkpointerBlobBytes: 0,
    checkpointRows: 0,
    writeRows: 0,
    fileBytes: 0,
  };
  const r =
    arm === 'harness' || arm === 'bare'
      ? { ...zero, ...(await runTemporal(ctx, arm, steps, id)) }
      : { ...zero, ...(await runPeer(ctx, arm, steps, id)) };
  return {
    rep,
    arm,
    steps,
    ...r,
    ownCpuMs: ownCpuMs() - cpu0,
    serverCpuMs: processCpuMs(ctx.rig.server.dir) - srv0,
  };
}

/** Arms in a rotating order, so no arm always runs first or right after another. */
function rotation(i: number): PeerArm[] {
  const k = i % ARMS.length;
  return [...ARMS.slice(k), ...ARMS.slice(0, k)];
}

interface Row {
  arm: PeerArm;
  steps: number;
  stepsPerS: number;
  msPerStep: number;
  persistedPerStep: number;
  historyPerStep: number;
  evidencePerStep: number;
  checkpointerPerStep: number;
  blobPerStep: number;
  filePerStep: number;
  checkpointRows: number;
  ownCpuPerStep: number;
  serverCpuPerStep: number;
}

/** Medians over repetitions of each repetition's median run (rates) or totals per step (bytes, CPU). */
function summarize(samples: readonly Sample[], reps: number): Row[] {
  const rows: Row[] = [];
  for (const steps of [...Object.keys(PLAN), ...Object.keys(PEER_ONLY_PLAN)].map(Number)) {
    for (const arm of steps in PLAN ? ARMS : PEER_ARMS) {
      const perRep = [...Array(reps).keys()].map((rep) => {
        const s = samples.filter((x) => x.rep === rep && x.arm === arm && x.steps === steps);
        const n = s.length * steps;
        const sum = (f: (x: Sample) => number) => s.reduce((a, x) => a + f(x), 0) / n;
        return {
          stepsPerS: median(s.map((x) => (1000 * steps) / x.wallMs)),
          history: sum((x) => x.historyBytes),
          evidence: sum((x) => x.evidenceBytes),
          checkpointer: sum((x) => x.checkpointerBytes),
          blob: sum((x) => x.checkpointerBlobBytes),
          file: sum((x) => x.fileBytes),
          rows: median(s.map((x) => x.checkpointRows)),
          own: sum((x) => x.ownCpuMs),
          server: sum((x) => x.serverCpuMs),
        };
      });
      const m = (f: (x: (typeof perRep)[number]) => number) => median(perRep.map(f));
      const historyPerStep = m((x) => x.history);
      const evidencePerStep = m((x) => x.evidence);
      const checkpointerPerStep = m((x) => x.checkpointer);
      const stepsPerS = m((x) => x.stepsPerS);
      rows.push({
        arm,
        steps,
        stepsPerS,
        msPerStep: 1000 / stepsPerS,
        persistedPerStep: historyPerStep + evidencePerStep + checkpointerPerStep,
        historyPerStep,
        evidencePerStep,
        checkpointerPerStep,
        blobPerStep: m((x) => x.blob),
        filePerStep: m((x) => x.file),
        checkpointRows: m((x) => x.rows),
        ownCpuPerStep: m((x) => x.own),
        serverCpuPerStep: m((x) => x.server),
      });
    }
  }
  return rows;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) =>
    r.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function render(rows: readonly Row[]): string {
  const bare = (steps: number) => rows.find((r) => r.arm === 'bare' && r.steps === steps);
  const fmt = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '-');
  const speed = table(
    ['size', 'arm', 'steps/s', 'ms/step', 'x bare', 'cpu ms/step (this process)', 'cpu ms/step (dev server)'],
    rows.map((r) => [
      `${r.steps}`,
      r.arm,
      fmt(r.stepsPerS, 1),
      fmt(r.msPerStep, 2),
      bare(r.steps) ? `${fmt(r.stepsPerS / bare(r.steps)!.stepsPerS, 2)}x` : '-',
      fmt(r.ownCpuPerStep, 2),
      TEMPORAL_ARMS.includes(r.arm) ? fmt(r.serverCpuPerStep, 2) : '-',
    ]),
  );
  const bytes = table(
    [
      'size',
      'arm',
      'persisted B/step',
      'x bare',
      'history',
      'evidence store',
      'checkpointer rows',
      'checkpointer blobs',
      'sqlite file',
      'checkpoints',
    ],
    rows.map((r) => {
      const lg = !TEMPORAL_ARMS.includes(r.arm);
      return [
        `${r.steps}`,
        r.arm,
        fmt(r.persistedPerStep),
        bare(r.steps) ? `${fmt(r.persistedPerStep / bare(r.steps)!.persistedPerStep, 2)}x` : '-',
        lg ? '-' : fmt(r.historyPerStep),
        r.evidencePerStep > 0 ? fmt(r.evidencePerStep) : '-',
        lg ? fmt(r.checkpointerPerStep) : '-',
        lg ? fmt(r.blobPerStep) : '-',
        lg ? fmt(r.filePerStep) : '-',
        lg ? fmt(r.checkpointRows) : '-',
      ];
    }),
  );
  return `1. Speed, one run at a time (client clock: start -> result / invoke)\n${speed}\n\n2. Bytes persisted per step (per run, / steps)\n${bytes}`;
}

async function main(): Promise<void> {
  const started = Date.now();
  const argv = process.argv.slice(2);
  const reps = flag(argv, '--reps', 3);
  const dataDir = argv.includes('--disk') || !existsSync('/dev/shm') ? tmpdir() : '/dev/shm';
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const machine = await machineInfo();
  progress(`${machine.nproc} CPU ${machine.cpuModel}, node ${machine.node}; ${reps} repetitions`);
  const bundle = await bundleWorkflows({ workflowsPath: benchWorkflowsPath });
  const sizes = Object.keys(PLAN).map(Number);
  // The scripted model routes of every size the arms run (lg-acts runs the peer-only sizes too).
  const routes = [...sizes, ...Object.keys(PEER_ONLY_PLAN).map(Number)];
  const samples: Sample[] = [];
  for (let rep = 0; rep < reps; rep++) {
    progress(`repetition ${rep + 1}/${reps}: starting a private dev server`);
    const rig = await createRig(bundle, routes, dataDir, (l) => progress(`  server: ${l}`));
    const dir = mkdtempSync(join(dataDir, 'harness-peer-'));
    const evidence = new Database(join(rig.server.dir, 'evidence.db'), { readonly: true });
    try {
      const taskQueue = `peer-r${rep}`;
      const worker = await rig.startWorker(taskQueue);
      const ctx: PeerContext = {
        rig,
        dir,
        evidence,
        activities: harnessActivities(rig.composition),
        taskQueue,
      };
      // Warm-up (not counted): one run of 1 and of 10 steps per arm.
      for (const steps of [1, 10])
        for (const arm of ARMS) await runOne(ctx, rep, arm, steps, `warm-${arm}-${steps}-r${rep}`);
      let turn = rep;
      for (const steps of sizes) {
        for (let i = 0; i < PLAN[steps]!; i++) {
          for (const arm of rotation(turn++))
            samples.push(await runOne(ctx, rep, arm, steps, `peer-${arm}-${steps}-r${rep}-${i}`));
        }
        const last = samples.filter((s) => s.rep === rep && s.steps === steps);
        progress(
          `  ${steps}-step runs: ${ARMS.map((a) => {
            const w = median(last.filter((s) => s.arm === a).map((s) => s.wallMs));
            return `${a} ${((1000 * steps) / w).toFixed(0)}/s`;
          }).join(', ')}`,
        );
      }
      await worker.stop();
      for (const steps of Object.keys(PEER_ONLY_PLAN).map(Number)) {
        for (let i = 0; i < PEER_ONLY_PLAN[steps]!; i++)
          for (const arm of PEER_ARMS)
            samples.push(await runOne(ctx, rep, arm, steps, `peer-${arm}-${steps}-r${rep}-${i}`));
        progress(`  ${steps}-step runs (LangGraph arms only) done`);
      }
    } finally {
      evidence.close();
      rmSync(dir, { recursive: true, force: true });
      await rig.close();
    }
  }
  const rows = summarize(samples, reps);
  const elapsedS = (Date.now() - started) / 1000;
  console.log(
    `peer side by side: harness, bare Temporal, LangGraph JS ${peerVersions()} + SqliteSaver\n` +
      `${machine.nproc} CPU (${machine.cpuModel}), node ${machine.node}; ${reps} repetitions, ` +
      `runs per repetition ${JSON.stringify(PLAN)}, LangGraph arms only ${JSON.stringify(PEER_ONLY_PLAN)}; medians over repetitions; ${elapsedS.toFixed(0)} s\n`,
  );
  console.log(render(rows));
  const out = resolve(projectRoot, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  const file = join(out, `peer-${new Date(started).toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ machine, reps, plan: PLAN, peerOnlyPlan: PEER_ONLY_PLAN, dataDir, elapsedS, versions: peerVersions(), rows, samples }, null, 1)}\n`,
  );
  console.log(`\nresults: ${file}`);
}

function peerVersions(): string {
  const v = (name: string) =>
    (
      JSON.parse(
        readFileSync(join(projectRoot, 'node_modules', ...name.split('/'), 'package.json'), 'utf8'),
      ) as {
        version: string;
      }
    ).version;
  return ['@langchain/langgraph', '@langchain/langgraph-checkpoint-sqlite', '@langchain/core']
    .map((n) => `${n}@${v(n)}`)
    .join(' ');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
