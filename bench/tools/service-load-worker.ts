/**
 * The worker process of the run-service benches (bench/tools/service-load.ts, service-concurrency.ts
 * and waiting-runs.ts start it; not meant to be run by hand): the bench composition with SQLite
 * stores in `LOAD_DIR` (the evidence store at `LOAD_STORE_URL` instead when set, e.g. PostgreSQL;
 * the refund business store stays `LOAD_DIR/refund.db`, which several worker processes share), the
 * principal registry of `LOAD_PRINCIPALS` (JSON), on `LOAD_TASK_QUEUE` of the server at
 * `LOAD_ADDRESS`/`LOAD_NAMESPACE`, with the bench's worker settings (`LOAD_MAX_CACHED` overrides the
 * sticky cache size). Every tool call is held `LOAD_TOOL_DELAY_MS` after it ran, before its result
 * goes back to the run (the events it stored are already in the store), so a run lasts a few seconds
 * at almost no CPU. With `LOAD_METRICS_PORT` the SDK's Prometheus metrics are served on
 * 127.0.0.1:<port>/metrics (sticky cache size, hits, misses, forced evictions, replays).
 * Prints "polling" when ready. A `memory` line on stdin is answered `memory <json>` (bench/lib/
 * load-worker.ts reads it) after a forced GC when started with `--expose-gc`. SIGTERM, or the end of
 * stdin, shuts it down.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { PrincipalRegistry } from '../../src/contract/principals.js';
import { bundleWorkflows } from '../../src/worker/bundle.js';
import { harnessActivities } from '../../src/worker/harness-worker.js';
import { createBenchComposition, WORKER_SETTINGS } from '../lib/rig.js';
import { benchWorkflowsPath } from '../lib/workflows-path.js';

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

/** This process's memory after a full GC of its main thread (when `gc` is exposed). */
function memory(): { rss: number; heapUsed: number; external: number; gc: boolean } {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; gc && i < 3; i++) gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, gc: gc !== undefined };
}

async function main(): Promise<void> {
  const metricsPort = process.env.LOAD_METRICS_PORT;
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    ...(metricsPort
      ? { telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${metricsPort}` } } } }
      : {}),
  });
  const steps = Number(env('LOAD_STEPS'));
  const delayMs = Number(env('LOAD_TOOL_DELAY_MS'));
  const maxCached = process.env.LOAD_MAX_CACHED ? Number(process.env.LOAD_MAX_CACHED) : undefined;
  const composition = await createBenchComposition(
    env('LOAD_DIR'),
    [steps],
    JSON.parse(env('LOAD_PRINCIPALS')) as PrincipalRegistry,
    process.env.LOAD_STORE_URL || undefined,
  );
  const connection = await NativeConnection.connect({ address: env('LOAD_ADDRESS') });
  try {
    const activities = harnessActivities(composition);
    const runTool = activities.runTool.bind(activities);
    const runToolV2 = activities.runToolV2.bind(activities);
    const runToolV3 = activities.runToolV3.bind(activities);
    const delayed = async <T>(result: Promise<T>): Promise<T> => {
      const r = await result;
      await new Promise((done) => setTimeout(done, delayMs));
      return r;
    };
    activities.runTool = (input) => delayed(runTool(input));
    activities.runToolV2 = (input) => delayed(runToolV2(input));
    activities.runToolV3 = (input) => delayed(runToolV3(input));
    const worker = await Worker.create({
      connection,
      namespace: env('LOAD_NAMESPACE'),
      taskQueue: env('LOAD_TASK_QUEUE'),
      identity: composition.identity,
      workflowBundle: await bundleWorkflows({ workflowsPath: benchWorkflowsPath }),
      activities,
      ...WORKER_SETTINGS,
      ...(maxCached !== undefined ? { maxCachedWorkflows: maxCached } : {}),
    });
    const stop = () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    };
    process.once('SIGTERM', stop);
    // The parent closes our stdin when it ends, however it ends: stop with it.
    process.stdin.on('end', stop);
    let pending = '';
    process.stdin.on('data', (b: Buffer) => {
      pending += b.toString();
      let cut: number;
      while ((cut = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, cut).trim();
        pending = pending.slice(cut + 1);
        if (line === 'memory') process.stdout.write(`memory ${JSON.stringify(memory())}\n`);
      }
    });
    const running = worker.run();
    process.stdout.write('polling\n');
    await running;
  } finally {
    await composition.close();
    await connection.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
