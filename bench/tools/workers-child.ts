/**
 * One worker process of the more-workers benchmark (bench/tools/workers.ts forks it with an IPC
 * channel; not meant to be run by hand). It builds the bench composition with the evidence store at
 * `WORKERS_STORE_URL` (PostgreSQL) and a worker on `WORKERS_TASK_QUEUE` of the server at
 * `WORKERS_ADDRESS`/`WORKERS_NAMESPACE`, with the bench's worker settings and the workflow bundle the
 * parent wrote to `WORKERS_BUNDLE` (bundled once, the same code in every process, as the bench rig
 * hands one bundle to every worker). Then:
 *
 * - sends `{ type: 'ready' }` and waits: nothing is polled before the parent says `{ type: 'go' }`, so
 *   process start, store open and worker creation stay out of the measured drain;
 * - on `{ type: 'stop' }` it shuts the worker down, closes the store and sends
 *   `{ type: 'stopped', activities, cpuMs, sdkWarnings }` (activity tasks it ran, its own CPU since
 *   `go`, SDK warnings logged), then exits.
 *
 * If the parent goes away (the IPC channel closes) it shuts down and exits too.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { harnessActivities } from '../../src/worker/harness-worker.js';
import { ownCpuMs } from '../lib/cpu.js';
import { createBenchComposition, WORKER_SETTINGS } from '../lib/rig.js';

/** Messages between bench/tools/workers.ts and this process. */
export type ToChild = { readonly type: 'go' } | { readonly type: 'stop' };
export type FromChild =
  | { readonly type: 'ready' }
  | {
      readonly type: 'stopped';
      readonly activities: number;
      readonly cpuMs: number;
      readonly sdkWarnings: number;
    };

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

function send(message: FromChild): Promise<void> {
  return new Promise((resolve, reject) =>
    process.send!(message, undefined, {}, (err) => (err ? reject(err) : resolve())),
  );
}

async function main(): Promise<void> {
  if (!process.send)
    throw new Error('workers-child.ts is started by bench/tools/workers.ts (needs an IPC channel)');
  const index = env('WORKERS_INDEX');
  // The SDK core's warnings (e.g. a workflow task over 5 s on an overloaded machine) are counted and
  // reported to the parent; the first two are printed.
  let sdkWarnings = 0;
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => {
      sdkWarnings += 1;
      if (sdkWarnings <= 2)
        process.stderr.write(`[worker ${index} sdk ${entry.level}] ${entry.message.slice(0, 300)}\n`);
    }),
    telemetryOptions: { logging: { forward: {} } },
  });
  const composition = await createBenchComposition(
    env('WORKERS_DIR'),
    [Number(env('WORKERS_STEPS'))],
    undefined,
    env('WORKERS_STORE_URL'),
  );
  const connection = await NativeConnection.connect({ address: env('WORKERS_ADDRESS') });
  try {
    const activities = harnessActivities(composition);
    let ran = 0;
    for (const [name, fn] of Object.entries(activities) as [string, (...a: unknown[]) => unknown][]) {
      (activities as Record<string, unknown>)[name] = (...args: unknown[]) => {
        ran += 1;
        return fn.call(activities, ...args);
      };
    }
    const worker = await Worker.create({
      connection,
      namespace: env('WORKERS_NAMESPACE'),
      taskQueue: env('WORKERS_TASK_QUEUE'),
      identity: `${composition.identity}-${index}`,
      workflowBundle: { codePath: env('WORKERS_BUNDLE') },
      activities,
      ...WORKER_SETTINGS,
    });
    const stop = () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    };
    let running: Promise<void> | undefined;
    let cpu0 = 0;
    const go = new Promise<void>((resolve) => {
      process.on('message', (m: ToChild) => {
        if (m.type === 'go' && !running) {
          cpu0 = ownCpuMs();
          running = worker.run();
          resolve();
        }
        if (m.type === 'stop') stop();
      });
      // The parent ended, however it ended: stop with it (before `go`, there is nothing to stop).
      process.once('disconnect', () => {
        if (!running) process.exit(1);
        stop();
      });
    });
    await send({ type: 'ready' });
    await go;
    await running;
    const cpuMs = ownCpuMs() - cpu0;
    if (process.connected) await send({ type: 'stopped', activities: ran, cpuMs, sdkWarnings });
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
