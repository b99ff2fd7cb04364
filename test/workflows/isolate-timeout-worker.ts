/**
 * Child process of isolate-timeout.test.ts: a worker on `ISOLATE_ADDRESS`/`ISOLATE_NAMESPACE` with
 * the bench's worker settings (`ISOLATE_SETTINGS=bench`) or the SDK's defaults (`sdk`) runs one
 * `holdActivation(ISOLATE_HOLD_MS)` and prints `completed <result> <isolateExecutionTimeoutMs>`.
 * Run in its own process because a vm timeout inside the microtask checkpoint aborts the process
 * (nodejs/node#38503): the test reads the exit code and stderr.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { WORKER_SETTINGS } from '../../bench/lib/rig.js';
import type { holdActivation } from './isolate-timeout-workflow.js';

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const address = env('ISOLATE_ADDRESS');
  const namespace = env('ISOLATE_NAMESPACE');
  const settings = env('ISOLATE_SETTINGS') === 'bench' ? WORKER_SETTINGS : {};
  const native = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  try {
    const taskQueue = `isolate-timeout-${randomUUID()}`;
    const worker = await Worker.create({
      connection: native,
      namespace,
      taskQueue,
      workflowBundle: await bundleWorkflowCode({
        workflowsPath: fileURLToPath(new URL('./isolate-timeout-workflow.ts', import.meta.url)),
        logger: new DefaultLogger('ERROR'),
      }),
      ...settings,
    });
    const client = new Client({ connection, namespace });
    const result = await worker.runUntil(
      client.workflow.execute<typeof holdActivation>('holdActivation', {
        taskQueue,
        workflowId: taskQueue,
        args: [Number(env('ISOLATE_HOLD_MS'))],
        workflowTaskTimeout: '60s',
        workflowExecutionTimeout: '90s',
      }),
    );
    process.stdout.write(`completed ${String(result)} ${worker.options.isolateExecutionTimeoutMs}\n`);
  } finally {
    await connection.close();
    await native.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(3);
  },
);
