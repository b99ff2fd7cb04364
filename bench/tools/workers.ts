/**
 * More workers: `npx tsx bench/tools/workers.ts [--reps N] [--runs N] [--steps N] [--disk]` measures
 * how the harness's throughput changes from one worker process to two, with the evidence store in
 * PostgreSQL (several worker processes cannot share one SQLite file well; PostgreSQL is the store
 * for more than one worker).
 *
 * Per repetition: a fresh private dev server (bench/lib/server.ts via the rig). One throwaway
 * PostgreSQL cluster for the whole run (test/support/postgres.ts, on tmpfs unless `--disk`), a fresh
 * schema per measurement. Per configuration (1 worker, then 2, or the other way round: the order
 * alternates by repetition): `--runs` runs (60) of `--steps` steps (10) of `agentRun` with
 * `bench.steps@v1` are started on a task queue nobody polls, then the worker processes
 * (bench/tools/workers-child.ts, real child processes with the bench's worker settings and the one
 * bundle written here) are created; when all say they are ready, the clock starts and they begin to
 * poll. Throughput = runs / (that start -> latest close time). Every run must end `succeeded` with
 * output `done`. CPU over the drain, per run: each worker process, the dev server and the PostgreSQL
 * server (postmaster and all its processes, ended backends included), all from /proc, and this
 * process (the client waiting for the results).
 *
 * Progress on stderr, a table on stdout (medians over repetitions), raw results in
 * bench/results/workers-<timestamp>.json. BENCHMARKS.md, "More workers", has the method and results.
 * On this 2-core machine the worker processes, the dev server and PostgreSQL share the same two
 * cores, so the ratio says how far a second process helps here, not how the harness scales.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { projectRoot } from '../../src/devserver/config.js';
import { bundleWorkflows } from '../../src/worker/bundle.js';
import { openEvidenceStore } from '../../src/activities/store/open-evidence-store.js';
import { startTestPostgres, type TestPostgres } from '../../test/support/postgres.js';
import { expectDone, startRun } from '../lib/arms.js';
import { ownCpuMs, pidCpuMs, processCpuMs, processTreeCpuMs } from '../lib/cpu.js';
import { machineInfo } from '../lib/machine.js';
import { progress } from '../lib/progress.js';
import { createRig, type Rig } from '../lib/rig.js';
import { median, round } from '../lib/stats.js';
import { benchWorkflowsPath } from '../lib/workflows-path.js';
import type { FromChild, ToChild } from './workers-child.js';
import { startMany } from '../scenarios/saturation.js';

const CHILD_SCRIPT = join(projectRoot, 'bench', 'tools', 'workers-child.ts');
/** Worker processes in a configuration: A = 1, B = 2. */
type Workers = 1 | 2;

interface Options {
  readonly reps: number;
  readonly runs: number;
  readonly steps: number;
  /** Where the dev servers' db, the PostgreSQL cluster and the bundle live: tmpfs unless `--disk`. */
  readonly dataDir: string;
}

const USAGE = `usage: npx tsx bench/tools/workers.ts [--reps N] [--runs N] [--steps N] [--disk]
  --reps N   repetitions, each on a fresh dev server, both configurations per repetition (default 4)
  --runs N   runs started per configuration (default 60)
  --steps N  steps per run (default 10)
  --disk     keep the dev server's db and the PostgreSQL cluster on disk instead of /dev/shm`;

/** @throws Error on an unknown flag or a value that is not a positive integer. */
export function parseWorkersOptions(argv: readonly string[]): Options | 'help' {
  if (argv.includes('--help') || argv.includes('-h')) return 'help';
  const valued = ['--reps', '--runs', '--steps'];
  argv.forEach((a, i) => {
    if (a.startsWith('--') && ![...valued, '--disk'].includes(a))
      throw new Error(`unknown flag ${a}\n${USAGE}`);
    if (!a.startsWith('--') && !valued.includes(argv[i - 1] ?? ''))
      throw new Error(`unexpected argument ${a}\n${USAGE}`);
  });
  const int = (name: string, fallback: number): number => {
    const i = argv.indexOf(name);
    if (i < 0) return fallback;
    const v = Number(argv[i + 1]);
    if (!Number.isInteger(v) || v < 1) throw new Error(`${name} needs a positive integer`);
    return v;
  };
  return {
    reps: int('--reps', 4),
    runs: int('--runs', 60),
    steps: int('--steps', 10),
    dataDir: argv.includes('--disk') || !existsSync('/dev/shm') ? tmpdir() : '/dev/shm',
  };
}

interface Sample {
  readonly rep: number;
  readonly workers: Workers;
  readonly runs: number;
  readonly stepsPerRun: number;
  /** Worker start (all processes ready, `go` sent) -> latest close time. */
  readonly drainMs: number;
  readonly runsPerSecond: number;
  /** CPU ms per run over the drain. `workers` is the sum over the worker processes. */
  readonly cpuMsPerRun: {
    readonly workers: number;
    readonly perWorker: readonly number[];
    readonly server: number;
    readonly postgres: number;
    readonly client: number;
  };
  /** Activity tasks each worker process ran (both must be above 0 with two workers). */
  readonly activitiesPerWorker: readonly number[];
  /** CPU ms each worker process reported for itself from `go` to its exit (process.cpuUsage). */
  readonly selfReportedCpuMs: readonly number[];
  /** SDK warnings the worker processes logged (e.g. a workflow task over 5 s: an overloaded machine). */
  readonly sdkWarnings: number;
  readonly loadAverage1m: { readonly before: number; readonly after: number };
}

/** What a worker process reports when it stops. */
interface Report {
  readonly activities: number;
  readonly cpuMs: number;
  readonly sdkWarnings: number;
}

interface Child {
  readonly pid: number;
  readonly ready: Promise<void>;
  /** Rejects when the process exits before it was asked to stop (never resolves). */
  readonly died: Promise<never>;
  go(): void;
  /** Ask it to stop; resolves with what it reports (SIGKILL after 30 s). */
  stop(): Promise<Report>;
  kill(): void;
}

const live = new Set<Child>();

function forkChild(env: Record<string, string>): Child {
  const child: ChildProcess = fork(CHILD_SCRIPT, [], {
    cwd: projectRoot,
    execArgv: ['--import', 'tsx'],
    // Its stdout goes to our stderr: stdout keeps only the table.
    stdio: ['ignore', 2, 2, 'ipc'],
    env: { ...process.env, ...env },
  });
  if (child.pid === undefined) throw new Error('could not start a worker process');
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let stopped: Report | undefined;
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((res, rej) => {
    const timer = setTimeout(() => rej(new Error('a worker process was not ready in 120 s')), 120_000);
    onReady = () => {
      clearTimeout(timer);
      res();
    };
    void exited.then((code) => {
      clearTimeout(timer);
      rej(new Error(`a worker process exited (${code}) before it was ready`));
    });
  });
  // Awaited by the caller; this only keeps a late rejection (killed after another failed) handled.
  ready.catch(() => undefined);
  child.on('message', (m: FromChild) => {
    if (m.type === 'ready') onReady();
    if (m.type === 'stopped')
      stopped = { activities: m.activities, cpuMs: m.cpuMs, sdkWarnings: m.sdkWarnings };
  });
  let stopping = false;
  const died = new Promise<never>((_, rej) => {
    void exited.then((code) => {
      if (!stopping) rej(new Error(`worker process ${child.pid} exited (${code}) during the drain`));
    });
  });
  died.catch(() => undefined);
  const kill = () => {
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const handle: Child = {
    pid: child.pid,
    ready,
    go: () => child.send({ type: 'go' } satisfies ToChild),
    kill,
    died,
    async stop() {
      stopping = true;
      if (child.connected) child.send({ type: 'stop' } satisfies ToChild);
      const timer = setTimeout(kill, 30_000);
      const code = await exited;
      clearTimeout(timer);
      live.delete(handle);
      if (!stopped) throw new Error(`a worker process ended (${code}) without reporting`);
      return stopped;
    },
  };
  live.add(handle);
  return handle;
}

function postmasterPid(pg: TestPostgres): number {
  const pid = Number(readFileSync(join(pg.dataDir!, 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid < 1) throw new Error('no postmaster pid in postmaster.pid');
  return pid;
}

async function measure(
  o: Options,
  rig: Rig,
  pg: TestPostgres,
  work: string,
  workers: Workers,
  rep: number,
): Promise<Sample> {
  const taskQueue = `workers-w${workers}-r${rep}`;
  const storeUrl = pg.freshUrl();
  // Create the fresh schema now, so no worker process migrates it during the drain.
  await (await openEvidenceStore(storeUrl)).close();
  const handles = await startMany(o.runs, 16, (i) =>
    startRun(rig, 'harness', o.steps, taskQueue, `${taskQueue}-${i}`),
  );
  progress(
    `  ${workers} worker(s): ${o.runs} runs of ${o.steps} steps started, starting the worker processes`,
  );
  const children = Array.from({ length: workers }, (_, k) => {
    const dir = join(work, `${taskQueue}-${k}`);
    mkdirSync(dir);
    return forkChild({
      WORKERS_INDEX: String(k),
      WORKERS_DIR: dir,
      WORKERS_STEPS: String(o.steps),
      WORKERS_STORE_URL: storeUrl,
      WORKERS_ADDRESS: rig.server.address,
      WORKERS_NAMESPACE: rig.server.namespace,
      WORKERS_TASK_QUEUE: taskQueue,
      WORKERS_BUNDLE: join(work, 'bundle.js'),
    });
  });
  try {
    await Promise.all(children.map((c) => c.ready));
    const pgPid = postmasterPid(pg);
    const load0 = loadavg()[0]!;
    const server0 = processCpuMs(rig.server.dir);
    const pg0 = processTreeCpuMs(pgPid);
    const workers0 = children.map((c) => pidCpuMs(c.pid));
    const own0 = ownCpuMs();
    const t0 = Date.now();
    for (const c of children) c.go();
    progress(`  ${workers} worker(s): processes ${children.map((c) => c.pid).join(', ')} ready, polling`);
    // A worker process that dies fails the measurement (its runs would otherwise wait forever); the
    // result polls are then aborted, so none is left running into the closed connection.
    const abort = new AbortController();
    const drained = rig.client.withAbortSignal(abort.signal, async () => {
      for (const h of handles) await expectDone(h, 'harness', o.steps);
    });
    try {
      await Promise.race([drained, ...children.map((c) => c.died)]);
    } catch (err) {
      abort.abort();
      await drained.catch(() => undefined);
      throw err;
    }
    const perWorker = children.map((c, k) => (pidCpuMs(c.pid) - workers0[k]!) / o.runs);
    const server = (processCpuMs(rig.server.dir) - server0) / o.runs;
    const postgres = (processTreeCpuMs(pgPid) - pg0) / o.runs;
    const client = (ownCpuMs() - own0) / o.runs;
    const load1 = loadavg()[0]!;
    let last = 0;
    for (const h of handles) last = Math.max(last, (await h.describe()).closeTime?.getTime() ?? Date.now());
    const reports = await Promise.all(children.map((c) => c.stop()));
    const drainMs = last - t0;
    const sample: Sample = {
      rep,
      workers,
      runs: o.runs,
      stepsPerRun: o.steps,
      drainMs,
      runsPerSecond: o.runs / (drainMs / 1000),
      cpuMsPerRun: {
        workers: perWorker.reduce((a, b) => a + b, 0),
        perWorker,
        server,
        postgres,
        client,
      },
      activitiesPerWorker: reports.map((r) => r.activities),
      selfReportedCpuMs: reports.map((r) => r.cpuMs),
      sdkWarnings: reports.reduce((n, r) => n + r.sdkWarnings, 0),
      loadAverage1m: { before: load0, after: load1 },
    };
    progress(
      `  ${workers} worker(s): ${sample.runsPerSecond.toFixed(2)} runs/s (${(drainMs / 1000).toFixed(1)} s); cpu ms/run workers ${sample.cpuMsPerRun.workers.toFixed(1)} [${perWorker.map((x) => x.toFixed(1)).join(' + ')}], server ${server.toFixed(1)}, postgres ${postgres.toFixed(1)}, client ${client.toFixed(1)}; activities per worker ${sample.activitiesPerWorker.join(' / ')}; ${sample.sdkWarnings} SDK warnings`,
    );
    if (sample.activitiesPerWorker.some((n) => n === 0))
      throw new Error(
        `a worker process ran no activity (${sample.activitiesPerWorker.join(' / ')}): not ${workers} workers`,
      );
    return sample;
  } finally {
    for (const c of children) if (live.has(c)) c.kill();
  }
}

interface Summary {
  readonly runsPerSecond: Record<Workers, number>;
  /** Median over repetitions of (2 workers / 1 worker) within the repetition. */
  readonly ratioMedianOfReps: number;
  /** median runs/s with 2 workers / median runs/s with 1. */
  readonly ratioOfMedians: number;
  readonly cpuMsPerRun: Record<
    Workers,
    { workers: number; server: number; postgres: number; client: number; total: number }
  >;
  /** Total CPU over the drain / drain wall time (2.0 = both cores busy the whole drain). */
  readonly coresBusy: Record<Workers, number>;
}

function summarize(samples: readonly Sample[]): Summary {
  const of = (w: Workers) => samples.filter((s) => s.workers === w);
  const med = (w: Workers, f: (s: Sample) => number) => median(of(w).map(f));
  const total = (s: Sample) =>
    s.cpuMsPerRun.workers + s.cpuMsPerRun.server + s.cpuMsPerRun.postgres + s.cpuMsPerRun.client;
  const cpu = (w: Workers) => ({
    workers: med(w, (s) => s.cpuMsPerRun.workers),
    server: med(w, (s) => s.cpuMsPerRun.server),
    postgres: med(w, (s) => s.cpuMsPerRun.postgres),
    client: med(w, (s) => s.cpuMsPerRun.client),
    total: med(w, total),
  });
  const reps = [...new Set(samples.map((s) => s.rep))];
  const ratios = reps.flatMap((r) => {
    const a = samples.find((s) => s.rep === r && s.workers === 1);
    const b = samples.find((s) => s.rep === r && s.workers === 2);
    return a && b ? [b.runsPerSecond / a.runsPerSecond] : [];
  });
  const rps = { 1: med(1, (s) => s.runsPerSecond), 2: med(2, (s) => s.runsPerSecond) };
  return {
    runsPerSecond: rps,
    ratioMedianOfReps: median(ratios),
    ratioOfMedians: rps[2] / rps[1],
    cpuMsPerRun: { 1: cpu(1), 2: cpu(2) },
    coresBusy: {
      1: med(1, (s) => (total(s) * s.runs) / s.drainMs),
      2: med(2, (s) => (total(s) * s.runs) / s.drainMs),
    },
  };
}

function render(o: Options, s: Summary, samples: readonly Sample[], elapsedS: number, cpu: string): string {
  const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
  const rows: string[][] = [
    ['runs/s', f(s.runsPerSecond[1], 2), f(s.runsPerSecond[2], 2), `${f(s.ratioOfMedians, 2)}x`],
    [
      'steps/s',
      f(s.runsPerSecond[1] * o.steps, 1),
      f(s.runsPerSecond[2] * o.steps, 1),
      `${f(s.ratioOfMedians, 2)}x`,
    ],
    ...(['workers', 'server', 'postgres', 'client', 'total'] as const).map((k) => [
      `cpu ms/run, ${{ workers: 'worker processes', server: 'dev server', postgres: 'PostgreSQL', client: 'client (this process)', total: 'total' }[k]}`,
      f(s.cpuMsPerRun[1][k]),
      f(s.cpuMsPerRun[2][k]),
      `${f(s.cpuMsPerRun[2][k] / s.cpuMsPerRun[1][k], 2)}x`,
    ]),
    ['cores busy during the drain', f(s.coresBusy[1], 2), f(s.coresBusy[2], 2), ''],
  ];
  const head = ['', '1 worker', '2 workers', '2 / 1'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const perRep = samples.map(
    (x) =>
      `rep ${x.rep + 1}, ${x.workers} worker(s): ${f(x.runsPerSecond, 2)} runs/s in ${f(x.drainMs / 1000)} s, cpu ms/run ${f(x.cpuMsPerRun.workers)} workers [${x.cpuMsPerRun.perWorker.map((v) => f(v)).join(' + ')}] + ${f(x.cpuMsPerRun.server)} server + ${f(x.cpuMsPerRun.postgres)} pg + ${f(x.cpuMsPerRun.client)} client; activities ${x.activitiesPerWorker.join(' / ')}; ${x.sdkWarnings} SDK warnings; load ${f(x.loadAverage1m.before, 2)} -> ${f(x.loadAverage1m.after, 2)}`,
  );
  return [
    `more workers: agentRun (bench.steps@v1), ${o.runs} runs of ${o.steps} steps per configuration, PostgreSQL evidence store`,
    `${cpu}; ${o.reps} repetitions (fresh dev server each, fresh schema per configuration), medians over repetitions; ${f(elapsedS, 0)} s total`,
    '',
    line(head),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map(line),
    '',
    `ratio 2 / 1 workers, median of the per-repetition ratios: ${f(s.ratioMedianOfReps, 2)}x`,
    '',
    ...perRep,
  ].join('\n');
}

async function main(): Promise<void> {
  const started = Date.now();
  const parsed = parseWorkersOptions(process.argv.slice(2));
  if (parsed === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const o = parsed;
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const machine = await machineInfo();
  progress(
    `${machine.nproc} CPU ${machine.cpuModel}, node ${machine.node}; ${o.reps} repetitions, ${o.runs} runs of ${o.steps} steps`,
  );
  const work = mkdtempSync(join(o.dataDir, 'harness-workers-'));
  let pg: TestPostgres | undefined;
  let rig: Rig | undefined;
  // Once, whoever asks first (the end of main, an error, SIGINT/SIGTERM): every step runs even if
  // one before it fails, so no server, cluster or temp folder is left behind.
  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const c of [...live]) c.kill();
      const r = rig;
      if (r) await r.close().catch(() => r.server.stop());
      await pg?.stop().catch(() => undefined);
      rmSync(work, { recursive: true, force: true });
    })());
  const onSignal = () => {
    progress('interrupted: stopping the worker processes, the dev server and PostgreSQL');
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const samples: Sample[] = [];
  try {
    progress('bundling workflows once for every worker process');
    const bundle = await bundleWorkflows({ workflowsPath: benchWorkflowsPath });
    writeFileSync(join(work, 'bundle.js'), bundle.code);
    progress('starting a throwaway PostgreSQL cluster');
    pg = await startTestPostgres({ parentDir: o.dataDir, ignoreExternal: true });
    for (let rep = 0; rep < o.reps; rep++) {
      progress(`repetition ${rep + 1}/${o.reps}: starting a private dev server`);
      rig = await createRig(bundle, [o.steps], o.dataDir, (l) => progress(`  server: ${l}`));
      const order: Workers[] = rep % 2 === 0 ? [1, 2] : [2, 1];
      for (const w of order) samples.push(await measure(o, rig, pg, work, w, rep));
      await rig.close();
      rig = undefined;
    }
  } finally {
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const summary = summarize(samples);
  const elapsedS = (Date.now() - started) / 1000;
  console.log(
    render(
      o,
      summary,
      samples,
      elapsedS,
      `${machine.nproc} CPU (${machine.cpuModel}), node ${machine.node}, Temporal SDK ${machine.temporalSdk}`,
    ),
  );
  const dir = resolve(projectRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `workers-${new Date(started).toISOString().replace(/[:.]/g, '-')}.json`);
  const rounded = samples.map((x) => ({
    ...x,
    drainMs: Math.round(x.drainMs),
    runsPerSecond: round(x.runsPerSecond, 3),
    selfReportedCpuMs: x.selfReportedCpuMs.map((v) => Math.round(v)),
  }));
  writeFileSync(
    file,
    `${JSON.stringify({ machine, options: o, elapsedS, summary, samples: rounded }, null, 1)}\n`,
  );
  console.log(`\nresults: ${file}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
