import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { type RefundComposition } from '../../apps/refund/composition.js';
import { createShowcaseComposition } from '../../apps/showcase/composition.js';
import { benchScripts } from '../../apps/bench/bench-script.js';
import { harnessActivities, RUN_ISOLATE_EXECUTION_TIMEOUT } from '../../src/worker/harness-worker.js';
import { startPrivateServer, type PrivateServer } from './server.js';
import { registerBenchTools } from '../../apps/bench/bench-noop-tool.js';
import type { PrincipalRegistry } from '../../src/contract/principals.js';

/**
 * Worker settings used by every arm and every scenario (only `debugMode` differs, and only in the
 * memory scenario, for both arms alike). `maxCachedWorkflows` is above the largest number of runs in
 * flight (the 500 of the saturation test), so no run is evicted mid-flight. `isolateExecutionTimeout`
 * is the production worker's (`createHarnessWorker`), not the SDK's 5 s: an activation past the
 * limit while it runs microtasks aborts the whole worker process ("async hook stack has become
 * corrupted", nodejs/node#38503), which is how a bench worker died at 5,000 waiting runs
 * (BENCHMARKS.md, "The 5,000-run attempt (22:03)"). SDK 1.24 takes the option without declaring it
 * in `WorkerOptions`; spread into `Worker.create`, it is not checked as an excess property.
 */
export const WORKER_SETTINGS = {
  isolateExecutionTimeout: RUN_ISOLATE_EXECUTION_TIMEOUT,
  maxCachedWorkflows: 1000,
  maxConcurrentWorkflowTaskExecutions: 40,
  maxConcurrentActivityTaskExecutions: 300,
  maxConcurrentWorkflowTaskPolls: 8,
  maxConcurrentActivityTaskPolls: 8,
} as const;

/**
 * Holds every `bench.noop` call whose `i` equals `blockAt` until released (memory scenario). A held
 * call heartbeats, so its heartbeat timeout does not fire while it waits.
 */
export class ToolGate {
  private readonly runs = new Set<string>();
  private releaseAll!: () => void;
  private readonly released = new Promise<void>((r) => (this.releaseAll = r));
  constructor(readonly blockAt: number) {}
  /** How many different runs are held at the gate. */
  get blocked(): number {
    return this.runs.size;
  }
  async pass(input: {
    readonly runId: string;
    readonly args: Readonly<Record<string, unknown>>;
  }): Promise<void> {
    if (input.args.i !== this.blockAt) return;
    this.runs.add(input.runId);
    const ctx = Context.current();
    const beat = setInterval(() => ctx.heartbeat(), 2_000);
    try {
      await this.released;
    } finally {
      clearInterval(beat);
    }
  }
  release(): void {
    this.releaseAll();
  }
}

export interface RunningWorker {
  readonly worker: Worker;
  /** Shut down and wait until `run()` has returned. */
  stop(): Promise<void>;
}

/** One repetition's world: a fresh private server, a client, a composition with temp stores. */
export interface Rig {
  readonly server: PrivateServer;
  readonly client: Client;
  readonly composition: RefundComposition;
  readonly bundle: WorkflowBundleWithSourceMap;
  startWorker(taskQueue: string, options?: { gate?: ToolGate; debugMode?: boolean }): Promise<RunningWorker>;
  close(): Promise<void>;
}

/**
 * The bench worker's composition: the showcase apps plus the bench tool and the scripted routes for
 * `sizes`, with SQLite stores in `dir` (`evidence.db`, `refund.db`); `storeUrl` puts the evidence
 * store elsewhere (e.g. PostgreSQL, bench/tools/workers.ts).
 */
export function createBenchComposition(
  dir: string,
  sizes: readonly number[],
  principals?: PrincipalRegistry,
  storeUrl?: string,
  env: NodeJS.ProcessEnv = {},
): Promise<RefundComposition> {
  return createShowcaseComposition({
    storeUrl: storeUrl ?? `sqlite:${join(dir, 'evidence.db')}`,
    refundStorePath: join(dir, 'refund.db'),
    scripts: benchScripts(sizes),
    env,
    identity: 'bench-worker',
    extend: [(registry) => registerBenchTools(registry)],
    ...(principals ? { principals } : {}),
  });
}

export async function createRig(
  bundle: WorkflowBundleWithSourceMap,
  sizes: readonly number[],
  dataDir: string,
  log: (l: string) => void,
  env: NodeJS.ProcessEnv = {},
): Promise<Rig> {
  const server = await startPrivateServer(log, dataDir);
  const connection = await Connection.connect({ address: server.address });
  const native = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  const composition = await createBenchComposition(server.dir, sizes, undefined, undefined, env);
  const workers = new Set<RunningWorker>();
  return {
    server,
    client,
    composition,
    bundle,
    async startWorker(taskQueue, options = {}) {
      const activities = harnessActivities(composition);
      const gate = options.gate;
      if (gate) {
        // Every name: the harness arm's runs call runToolV3 (runToolV2 before the third step format), the bare arm's runTool.
        const runTool = activities.runTool.bind(activities);
        const runToolV2 = activities.runToolV2.bind(activities);
        const runToolV3 = activities.runToolV3.bind(activities);
        activities.runTool = async (input) => {
          await gate.pass(input);
          return runTool(input);
        };
        activities.runToolV2 = async (input) => {
          // A compact input names its run only when it is not the workflow's.
          await gate.pass({
            ...input,
            runId: input.runId ?? Context.current().info.workflowExecution?.workflowId ?? '',
          });
          return runToolV2(input);
        };
        activities.runToolV3 = async (input) => {
          await gate.pass({
            ...input,
            runId: input.runId ?? Context.current().info.workflowExecution?.workflowId ?? '',
          });
          return runToolV3(input);
        };
      }
      const worker = await Worker.create({
        connection: native,
        namespace: server.namespace,
        taskQueue,
        identity: composition.identity,
        workflowBundle: bundle,
        activities,
        debugMode: options.debugMode ?? false,
        ...WORKER_SETTINGS,
      });
      const running = worker.run();
      const handle: RunningWorker = {
        worker,
        stop: async () => {
          if (worker.getState() === 'RUNNING') worker.shutdown();
          await running;
          workers.delete(handle);
        },
      };
      workers.add(handle);
      return handle;
    },
    async close() {
      for (const w of [...workers]) await w.stop();
      await composition.close();
      await connection.close();
      await native.close();
      await server.stop();
    },
  };
}
