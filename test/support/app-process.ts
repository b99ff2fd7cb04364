import { spawn, type ChildProcess } from 'node:child_process';

/** A Node script of an app project, started by a test as its own process. */
export interface AppProcess {
  readonly pid: number;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves when the output matches `pattern`; rejects when the process exits first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited(): Promise<number | string>;
  /** Send `signal` (default SIGKILL: a crash, nothing cleans up) and wait for the exit. Idempotent. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Run `node <script> ...args` in `cwd` with exactly `env` (plus PATH and HOME). */
export function startAppProcess(
  cwd: string,
  script: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): AppProcess {
  const child: ChildProcess = spawn(process.execPath, [script, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const reap = () => child.kill('SIGKILL'); // never outlive the test process
  process.once('exit', reap);
  child.once('exit', () => process.off('exit', reap));
  let text = '';
  const collect = (b: Buffer) => (text += b.toString());
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const done = new Promise<number | string>((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit(code ?? signal ?? 'unknown')),
  );
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  return {
    pid: child.pid ?? -1,
    output: () => text,
    exited: () => done,
    waitFor: async (pattern, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = text.match(pattern);
        if (m) return m;
        if (ended()) throw new Error(`${script} exited before ${String(pattern)}:\n${text}`);
        if (Date.now() > deadline)
          throw new Error(`${script}: no ${String(pattern)} in ${timeoutMs} ms:\n${text}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    kill: async (signal = 'SIGKILL') => {
      if (!ended()) child.kill(signal);
      await done;
    },
  };
}
