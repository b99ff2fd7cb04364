/**
 * One very long harness run: `npx tsx bench/tools/long-run.ts [steps]` (default 10,000) runs
 * `bench.steps@v1` for that many steps on a private dev server (settings of temporal-dev.yml), with
 * the harness's own continue-as-new (default threshold), and reports per generation: steps, events,
 * history bytes, bytes per step, the size of the state it started with (the continue-as-new input
 * the previous generation carried) and the median and p99 step latency, and the CPU time to replay
 * the last generation's history, and the evidence store's size per step. Progress goes to stderr
 * every 500 steps and as each generation ends (so a run stopped early still reports what it did);
 * the result is written to bench/results/long-run-<timestamp>.json.
 * BENCHMARKS.md, "A very long run through continue-as-new", has its results.
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { startAgentRun } from '../../src/client/start-run.js';
import { projectRoot } from '../../src/devserver/config.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { bundleWorkflows } from '../../src/worker/bundle.js';
import { BENCH_TASK_MESSAGE, benchRoute } from '../../apps/bench/bench-script.js';
import { benchBudget } from '../lib/arms.js';
import { analyzeHistory } from '../lib/history.js';
import { parseOptions } from '../lib/options.js';
import { progress } from '../lib/progress.js';
import { createRig } from '../lib/rig.js';
import { benchWorkflowsPath } from '../lib/workflows-path.js';

const PROGRESS_EVERY = 500;

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

interface Generation {
  readonly index: number;
  readonly runId: string;
  readonly steps: number;
  readonly events: number;
  readonly bytes: number;
  readonly bytesPerStep: number;
  /** Bytes of the workflow input this generation started with (the carried state after the first). */
  readonly inputBytes: number;
  readonly stepP50Ms: number;
  readonly stepP99Ms: number;
  /** Steps per second from the generation's first event to its last. */
  readonly stepsPerSecond: number;
}

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;

interface ReadGeneration {
  readonly runId: string;
  readonly history: History;
  readonly stats: ReturnType<typeof analyzeHistory>;
  readonly startedAt: number;
  readonly seconds: number;
}

const eventSeconds = (e: NonNullable<History['events']>[number] | undefined): number =>
  Number(e?.eventTime?.seconds ?? 0) + (e?.eventTime?.nanos ?? 0) / 1e9;

/** The generation's figures as one table row. */
function row(g: Generation): string {
  return `${`${g.index + 1}`.padStart(10)}  ${`${g.steps}`.padStart(5)}  ${`${g.events}`.padStart(6)}  ${(g.bytes / 1024).toFixed(1).padStart(11)}  ${`${g.bytesPerStep}`.padStart(10)}  ${(g.inputBytes / 1024).toFixed(1).padStart(9)}  ${g.stepP50Ms.toFixed(1).padStart(11)}  ${g.stepP99Ms.toFixed(1).padStart(11)}  ${g.stepsPerSecond.toFixed(1).padStart(7)}`;
}

function generationOf(index: number, r: ReadGeneration): Generation {
  const { stats, history } = r;
  return {
    index,
    runId: r.runId,
    steps: stats.toolCalls,
    events: stats.events,
    bytes: stats.bytes,
    bytesPerStep: stats.toolCalls > 0 ? Math.round(stats.bytes / stats.toolCalls) : 0,
    inputBytes: inputBytes(history),
    stepP50Ms: quantile(stats.stepLatenciesMs, 0.5),
    stepP99Ms: quantile(stats.stepLatenciesMs, 0.99),
    stepsPerSecond: r.seconds > 0 ? stats.toolCalls / r.seconds : 0,
  };
}

const HEADER =
  'generation  steps  events  history KiB  bytes/step  input KiB  step p50 ms  step p99 ms  steps/s';

/** Bytes of the payloads a history's first event started the workflow with. */
function inputBytes(history: History): number {
  const payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
  return payloads.reduce((n, p) => n + (p.data?.length ?? 0), 0);
}

async function main(): Promise<void> {
  const steps = Number(process.argv[2] ?? 10_000);
  if (!Number.isInteger(steps) || steps < 1)
    throw new Error(`steps must be a positive whole number, got ${process.argv[2]}`);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const { dataDir } = parseOptions([]);
  const bundle = await bundleWorkflows({ workflowsPath: benchWorkflowsPath });
  const rig = await createRig(bundle, [steps], dataDir, (l) => progress(`server: ${l}`));
  try {
    const worker = await rig.startWorker('long-run');
    const workflowId = `long-run-${steps}`;
    const started = Date.now();
    const handle = await startAgentRun(rig.client, {
      taskQueue: 'long-run',
      workflowId,
      input: {
        schemaVersion: 1,
        profile: { name: 'bench.steps', version: 'v1' },
        modelRoute: benchRoute(steps),
        task: { message: BENCH_TASK_MESSAGE },
        budget: benchBudget(steps),
      },
    });
    const read = new Map<string, ReadGeneration>();
    const readGeneration = async (runId: string): Promise<ReadGeneration> => {
      const history = await rig.client.workflow.getHandle(workflowId, runId).fetchHistory();
      const events = history.events ?? [];
      const r: ReadGeneration = {
        runId,
        history,
        stats: analyzeHistory(history),
        startedAt: eventSeconds(events[0]),
        seconds: eventSeconds(events.at(-1)) - eventSeconds(events[0]),
      };
      read.set(runId, r);
      return r;
    };
    /** Reads each generation once it has ended, and reports it (generations end in order). */
    let reading = false;
    const readEnded = async (): Promise<void> => {
      if (reading) return;
      reading = true;
      try {
        const ended: string[] = [];
        for await (const w of rig.client.workflow.list({
          query: `WorkflowId = '${workflowId}' AND ExecutionStatus != 'Running'`,
        }))
          if (!read.has(w.runId)) ended.push(w.runId);
        for (const runId of ended) {
          const r = await readGeneration(runId);
          progress(`generation ended: ${HEADER}`);
          progress(`generation ended: ${row(generationOf(read.size - 1, r))}`);
        }
      } finally {
        reading = false;
      }
    };
    const watch = setInterval(() => {
      void readEnded().catch(() => undefined);
      void handle
        .query<RunView>('state')
        .then((v) => {
          if (v.budget.toolCalls % PROGRESS_EVERY < 40)
            progress(`${v.budget.toolCalls}/${steps} steps, ${Math.round((Date.now() - started) / 1000)} s`);
        })
        .catch(() => undefined);
    }, 2_000);
    const result: AgentRunResult = await handle.result();
    clearInterval(watch);
    const wallMs = Date.now() - started;
    if (result.status !== 'succeeded' || result.output !== 'done')
      throw new Error(`the run ended ${result.status}: ${JSON.stringify(result.terminalReason)}`);
    progress(`done in ${Math.round(wallMs / 1000)} s; reading every generation`);

    while (reading) await new Promise((r) => setTimeout(r, 100));
    for await (const w of rig.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
      if (!read.has(w.runId)) await readGeneration(w.runId);
    const histories = [...read.values()].sort(
      (a, b) => a.startedAt - b.startedAt || a.stats.events - b.stats.events,
    );
    const generations = histories.map((r, index) => generationOf(index, r));
    const total = generations.reduce((n, g) => n + g.steps, 0);
    if (total !== steps) throw new Error(`the generations made ${total} tool calls, not ${steps}`);

    const last = histories[histories.length - 1]!;
    const replayStart = process.cpuUsage();
    await Worker.runReplayHistory({ workflowBundle: bundle }, last.history, workflowId);
    const replay = process.cpuUsage(replayStart);
    const replayCpuMs = Math.round((replay.user + replay.system) / 1000);

    // The evidence store (SQLite, with its write-ahead log): events, message groups, and one request
    // package per model call, which holds what was sent (up to a full window).
    const evidenceBytes = ['evidence.db', 'evidence.db-wal']
      .map((f) => join(rig.server.dir, f))
      .filter((f) => existsSync(f))
      .reduce((n, f) => n + statSync(f).size, 0);
    const lines = [
      `long run: ${steps} steps of bench.steps@v1 in ${generations.length} generations, ${Math.round(wallMs / 1000)} s`,
      '',
      HEADER,
      ...generations.map(row),
      '',
      `replay of the last generation (${last.stats.events} events): ${replayCpuMs} ms of CPU`,
      `evidence store: ${(evidenceBytes / 2 ** 20).toFixed(1)} MiB, ${Math.round(evidenceBytes / steps)} bytes per step`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    const dir = resolve(projectRoot, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `long-run-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(
      file,
      `${JSON.stringify({ steps, wallMs, replayCpuMs, evidenceBytes, generations }, null, 2)}\n`,
    );
    process.stdout.write(`results: ${file}\n`);
    await worker.stop();
  } finally {
    await rig.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
