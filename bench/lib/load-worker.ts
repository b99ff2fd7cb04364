/**
 * The run-service benches' worker process (bench/tools/service-load-worker.ts) seen from the bench:
 * spawn it with its `LOAD_*` environment, wait for a word it prints, ask it for its memory, stop it.
 * It runs with `--expose-gc`, so a memory sample is taken after a full collection of its main thread.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../src/devserver/config.js';

/** What the worker process says of its memory (bytes; `process.memoryUsage()` after `gc()`). */
export interface WorkerMemory {
  /** Resident set: the whole process (main thread, the workflow thread's V8 heap, the Rust core). */
  readonly rss: number;
  /** The main thread's V8 heap in use (activities, the SDK's plumbing; not the workflow thread's). */
  readonly heapUsed: number;
  readonly external: number;
  /** Whether `gc()` was available (the process was started with `--expose-gc`). */
  readonly gc: boolean;
}

export interface WorkerChild {
  readonly pid: number;
  /** Resolves once the process has printed `word`. @throws Error when it exits first or time runs out. */
  printed(word: string, timeoutMs: number): Promise<void>;
  /** Its memory after a forced GC. @throws Error when it does not answer in 30 s. */
  memory(): Promise<WorkerMemory>;
  /** SIGTERM and close its stdin; SIGKILL after 20 s. Resolves when it has exited. */
  stop(): Promise<void>;
}

/** The load worker (service-load-worker.ts) with `env`; killed if this process exits first. */
export function spawnWorker(env: Record<string, string>): WorkerChild {
  const script = join(projectRoot, 'bench', 'tools', 'service-load-worker.ts');
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script], {
    cwd: projectRoot,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  if (child.pid === undefined) throw new Error('could not start the worker process');
  const kill = () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL');
  process.once('exit', kill);
  let seen = '';
  child.stdout.on('data', (b: Buffer) => (seen += b.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const printed = async (word: string, timeoutMs: number, from = 0): Promise<number> => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const at = seen.indexOf(word, from);
      if (at >= 0) return at;
      if (child.exitCode !== null) throw new Error(`worker exited (${child.exitCode})`);
      if (Date.now() > until) throw new Error(`worker did not print ${word}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return {
    pid: child.pid,
    printed: async (word, timeoutMs) => void (await printed(word, timeoutMs)),
    memory: async () => {
      const from = seen.length;
      child.stdin.write('memory\n');
      const at = await printed('memory {', 30_000, from);
      const end = await printed('\n', 30_000, at);
      return JSON.parse(seen.slice(at + 'memory '.length, end)) as WorkerMemory;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      child.stdin.end();
      const t = setTimeout(kill, 20_000);
      await exited;
      clearTimeout(t);
      process.off('exit', kill);
    },
  };
}
