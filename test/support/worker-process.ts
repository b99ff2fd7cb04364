import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { inject } from 'vitest';
import { projectRoot } from '../../src/devserver/config.js';

/** A standalone worker process (`src/worker/main.ts`) started by a test. */
export interface WorkerProcess {
  readonly pid: number;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** SIGKILL it (no shutdown, no cleanup: a crash) and wait until it is gone. Idempotent. */
  kill(): Promise<void>;
}

export interface WorkerProcessOptions {
  readonly taskQueue: string;
  /** Folder holding `evidence.db` and `refund.db` (shared by every worker of one test). */
  readonly dir: string;
  /** Workflow bundle file; default the one the global setup built. */
  readonly bundlePath?: string;
  /** Temporal frontend; default the shared test server. */
  readonly temporalAddress?: string;
  /** Extra environment (latency drills, model provider settings). */
  readonly env?: Readonly<Record<string, string>>;
  /** How long to wait for "polling" (default 60 s). */
  readonly startTimeoutMs?: number;
  /**
   * A command the worker runs under, which must exec it (so the pid stays the worker's), e.g.
   * `['ip', 'netns', 'exec', 'ns-a']` to run it in another network namespace.
   */
  readonly wrap?: readonly string[];
}

const live = new Set<ChildProcessWithoutNullStreams>();
let exitHookInstalled = false;

/** Environment prefixes a worker must not inherit from the test process (they would change its composition). */
const SCRUBBED = ['HARNESS_', 'OPENAI_', 'ANTHROPIC_', 'TEMPORAL_'];

function killNow(child: ChildProcessWithoutNullStreams): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of live) killNow(child);
  });
}

function exited(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

/**
 * Spawn `node --import tsx src/worker/main.ts` on `taskQueue` with SQLite stores in `dir`, and wait
 * until it prints "polling".
 * @throws when the process exits or does not print "polling" within the timeout (it is killed then).
 */
export async function startWorkerProcess(o: WorkerProcessOptions): Promise<WorkerProcess> {
  installExitHook();
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!SCRUBBED.some((p) => k.startsWith(p))) env[k] = v;
  }
  Object.assign(env, {
    TEMPORAL_ADDRESS: o.temporalAddress ?? inject('temporalAddress'),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    HARNESS_TASK_QUEUE: o.taskQueue,
    HARNESS_STORE_URL: `sqlite:${join(o.dir, 'evidence.db')}`,
    HARNESS_REFUND_DB: join(o.dir, 'refund.db'),
    HARNESS_WORKFLOW_BUNDLE: o.bundlePath ?? inject('workflowBundlePath'),
    HARNESS_APP: join(projectRoot, 'test', 'support', 'test-app.ts'),
    ...o.env,
  });
  const command = [process.execPath, '--import', 'tsx', join(projectRoot, 'src', 'worker', 'main.ts')];
  const [file, ...args] = [...(o.wrap ?? []), ...command];
  const child = spawn(file!, args, {
    cwd: projectRoot,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let seen = '';
  const onData = (b: Buffer): void => {
    seen += b.toString();
    if (seen.length > 200_000) seen = seen.slice(-100_000);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const handle: WorkerProcess = {
    pid: child.pid ?? -1,
    output: () => seen,
    kill: async () => {
      killNow(child);
      await exited(child);
    },
  };
  const timeoutMs = o.startTimeoutMs ?? 60_000;
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setInterval(() => {
      if (/polling/.test(seen)) done(true);
    }, 50);
    const deadline = setTimeout(() => done(false), timeoutMs);
    const onExit = (): void => done(/polling/.test(seen));
    child.once('exit', onExit);
    function done(ok: boolean): void {
      clearInterval(timer);
      clearTimeout(deadline);
      child.off('exit', onExit);
      resolve(ok);
    }
  });
  if (!ready || child.exitCode !== null || child.signalCode !== null) {
    await handle.kill();
    throw new Error(
      `worker process on ${o.taskQueue} did not start polling within ${timeoutMs} ms; output:\n${seen.slice(-4000)}`,
    );
  }
  return handle;
}

/** SIGKILL every worker process this test file started and wait until they are gone (use in afterAll). */
export async function killAllWorkerProcesses(): Promise<void> {
  const all = [...live];
  for (const child of all) killNow(child);
  await Promise.all(all.map(exited));
}
