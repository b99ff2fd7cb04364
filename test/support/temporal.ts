import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, Worker, DefaultLogger, type WorkerOptions } from '@temporalio/worker';
import { afterAll, beforeAll, inject } from 'vitest';
import { cliCacheDir } from '../../src/devserver/cli-locator.js';
import { loadDevServerConfig } from '../../src/devserver/config.js';
import { RUN_ISOLATE_EXECUTION_TIMEOUT } from '../../src/worker/harness-worker.js';

let runtimeInstalled = false;

/** Keep worker logs quiet in tests (warnings and errors only). */
function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    /* already installed by another module in this process */
  }
}

/** A client and a native connection to the shared test server. Close both in afterAll. */
export interface TestTemporal {
  client: Client;
  connection: Connection;
  nativeConnection: NativeConnection;
  namespace: string;
  close(): Promise<void>;
}

export async function connectTestTemporal(): Promise<TestTemporal> {
  installQuietRuntime();
  const address = inject('temporalAddress');
  const namespace = inject('temporalNamespace');
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  const client = new Client({ connection, namespace });
  return {
    client,
    connection,
    nativeConnection,
    namespace,
    close: async () => {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

/** A unique task queue per test file so workers of parallel files never steal each other's tasks. */
export function uniqueTaskQueue(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/**
 * Create a worker on the shared connection with the workflow bundle built once by the global setup.
 * Run it with `worker.runUntil(promise)` or `startWorker`. Its activation limit is the harness
 * worker's (`RUN_ISOLATE_EXECUTION_TIMEOUT`, not the SDK's 5 s): an activation over the limit inside a
 * cancellation scope aborts the whole process (docs/deploy.md), here the test file's fork.
 */
export async function createTestWorker(
  t: TestTemporal,
  options: Omit<WorkerOptions, 'connection' | 'namespace' | 'workflowBundle' | 'workflowsPath'>,
): Promise<Worker> {
  return Worker.create({
    connection: t.nativeConnection,
    namespace: t.namespace,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    // SDK 1.24 takes the option but does not declare it in its types (harness-worker.ts).
    ...({ isolateExecutionTimeout: RUN_ISOLATE_EXECUTION_TIMEOUT } as object),
    ...options,
  });
}

/** Run a worker in the background; returns a stop function that shuts it down and waits. */
export function startWorker(worker: Worker): () => Promise<void> {
  const running = worker.run();
  return async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
  };
}

/**
 * Send a signal with the Temporal CLI (`temporal workflow signal`), as an operator would, to the
 * shared test server. Throws when the CLI exits non-zero.
 */
export function signalWithTemporalCli(
  workflowId: string,
  name: string,
  input: unknown,
  namespace: string = inject('temporalNamespace'),
): void {
  execFileSync(join(cliCacheDir(loadDevServerConfig().cli.version), 'temporal'), [
    'workflow',
    'signal',
    '--address',
    inject('temporalAddress'),
    '--namespace',
    namespace,
    '--workflow-id',
    workflowId,
    '--name',
    name,
    '--input',
    JSON.stringify(input),
  ]);
}

/**
 * For a describe block: before its tests, connect to the shared server and start a worker of the
 * tests' bundle with `activities` on a task queue of its own; after them, stop both. Call it in the
 * block's body; `temporal()` is the connection once the block's tests (or later hooks) run.
 */
export function useTestWorker(
  name: string,
  activities: WorkerOptions['activities'] = {},
): { readonly taskQueue: string; temporal(): TestTemporal } {
  const taskQueue = uniqueTaskQueue(name);
  let t: TestTemporal | undefined;
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    t = await connectTestTemporal();
    stop = startWorker(await createTestWorker(t, { taskQueue, activities }));
  });
  afterAll(async () => {
    await stop?.();
    await t?.close();
  });
  return {
    taskQueue,
    temporal: () => {
      if (!t) throw new Error(`useTestWorker(${name}): the worker starts in beforeAll`);
      return t;
    },
  };
}
