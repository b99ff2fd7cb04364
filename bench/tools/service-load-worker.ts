/**
 * The worker process of the service load test (bench/tools/service-load.ts starts it; not meant to
 * be run by hand): the bench composition with SQLite stores in `LOAD_DIR`, the principal registry of
 * `LOAD_PRINCIPALS` (JSON), on `LOAD_TASK_QUEUE` of the server at `LOAD_ADDRESS`/`LOAD_NAMESPACE`,
 * with the bench's worker settings. Every tool call is held `LOAD_TOOL_DELAY_MS` after it ran, before
 * its result goes back to the run (the events it stored are already in the store), so a run lasts a
 * few seconds at almost no CPU. Prints "polling" when ready; SIGTERM shuts it down.
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

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const steps = Number(env('LOAD_STEPS'));
  const delayMs = Number(env('LOAD_TOOL_DELAY_MS'));
  const composition = await createBenchComposition(
    env('LOAD_DIR'),
    [steps],
    JSON.parse(env('LOAD_PRINCIPALS')) as PrincipalRegistry,
  );
  const connection = await NativeConnection.connect({ address: env('LOAD_ADDRESS') });
  try {
    const activities = harnessActivities(composition);
    const runTool = activities.runTool.bind(activities);
    const runToolV2 = activities.runToolV2.bind(activities);
    const delayed = async <T>(result: Promise<T>): Promise<T> => {
      const r = await result;
      await new Promise((done) => setTimeout(done, delayMs));
      return r;
    };
    activities.runTool = (input) => delayed(runTool(input));
    activities.runToolV2 = (input) => delayed(runToolV2(input));
    const worker = await Worker.create({
      connection,
      namespace: env('LOAD_NAMESPACE'),
      taskQueue: env('LOAD_TASK_QUEUE'),
      identity: composition.identity,
      workflowBundle: await bundleWorkflows({ workflowsPath: benchWorkflowsPath }),
      activities,
      ...WORKER_SETTINGS,
    });
    const stop = () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    };
    process.once('SIGTERM', stop);
    // The parent closes our stdin when it ends, however it ends: stop with it.
    process.stdin.on('end', stop).resume();
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
