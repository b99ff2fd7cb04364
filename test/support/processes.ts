import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/** PIDs of processes whose command line contains `needle` (via pgrep -f). */
export function pidsMatching(needle: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', needle], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((pid) => pid !== process.pid);
  } catch {
    return [];
  }
}

/** Spawn a TypeScript entry point of the project with tsx, output captured. */
export function spawnTs(
  entry: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Resolve when the child's combined output matches `pattern`; reject on exit or timeout. */
export function waitForOutput(
  child: ChildProcessWithoutNullStreams,
  pattern: RegExp,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${pattern}; output:\n${seen}`)),
      timeoutMs,
    );
    const onData = (b: Buffer): void => {
      seen += b.toString();
      if (pattern.test(seen)) {
        clearTimeout(timer);
        resolvePromise(seen);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!pattern.test(seen)) reject(new Error(`exited with ${code} before ${pattern}; output:\n${seen}`));
    });
  });
}

/** Resolve with the exit code (or signal) once the child exits. */
export function waitForExit(child: ChildProcessWithoutNullStreams): Promise<number | NodeJS.Signals | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((r) => child.once('exit', (code, signal) => r(code ?? signal)));
}

/** Poll until `check` is true or the timeout passes. */
export async function eventually(
  check: () => boolean,
  timeoutMs: number,
  intervalMs = 200,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return check();
}
