import { fileURLToPath } from 'node:url';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../src/devserver/config.js';

/** The CLI entry as users run it (`npx harness` resolves to this file). */
export const harnessBin = join(projectRoot, 'bin', 'harness.js');

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The tests' app module (test/support/test-app.ts), which CLI and worker processes load. */
export const testAppPath = fileURLToPath(new URL('../support/test-app.ts', import.meta.url));

/** Environment of CLI child processes: the tests' app, the test's env without a real model provider, plus `env`. */
export function cliEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const base = { ...process.env };
  delete base.HARNESS_MODEL_PROVIDER;
  return { HARNESS_APP: testAppPath, ...base, ...env };
}

/** Spawn `harness <args>` with output captured. */
export function spawnCli(args: readonly string[], env: NodeJS.ProcessEnv): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [harnessBin, ...args], {
    cwd: projectRoot,
    env: cliEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Run `harness <args>` to its end. */
export function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 90_000,
): Promise<CliResult> {
  const child = spawnCli(args, env);
  return collect(child, timeoutMs);
}

/** Collect a CLI child's output until it exits (killed after `timeoutMs`). */
export function collect(child: ChildProcessWithoutNullStreams, timeoutMs = 90_000): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Retry `fn` until `check` holds on its result (visibility is eventually consistent). */
export async function until<T>(
  fn: () => Promise<T>,
  check: (v: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await fn();
  while (!check(last) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    last = await fn();
  }
  return last;
}
