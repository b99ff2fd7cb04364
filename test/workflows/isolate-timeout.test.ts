import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';

/** Wall time the test workflow's one activation holds the workflow thread: past the SDK's 5 s. */
const HOLD_MS = 8_000;

interface ChildResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs isolate-timeout-worker.ts in a child process with `settings` ('bench' or 'sdk'). */
function runChild(settings: 'bench' | 'sdk'): Promise<ChildResult> {
  const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
  const child = spawn(tsx, [fileURLToPath(new URL('./isolate-timeout-worker.ts', import.meta.url))], {
    env: {
      ...process.env,
      ISOLATE_ADDRESS: inject('temporalAddress'),
      ISOLATE_NAMESPACE: inject('temporalNamespace'),
      ISOLATE_SETTINGS: settings,
      ISOLATE_HOLD_MS: String(HOLD_MS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A workflow activation longer than the SDK's default `isolateExecutionTimeout` (5 s), whose time is
 * spent in microtasks inside a cancellation scope, aborts the whole worker process on node 20: the
 * vm timeout fires in the microtask checkpoint and Node finds its async hook stack corrupted
 * (nodejs/node#38503, temporalio/sdk-typescript#939). It killed a bench worker at 5,000 waiting runs
 * (BENCHMARKS.md, "The 5,000-run attempt (22:03)"). The bench's workers take the production
 * worker's 25 s (RUN_ISOLATE_EXECUTION_TIMEOUT) and survive such an activation.
 */
describe('a workflow activation past 5 s', () => {
  it('aborts a worker on the SDK defaults with the fatal async hook error (the hazard is real)', async () => {
    const r = await runChild('sdk');
    expect(r.code).not.toBe(0);
    expect(r.stdout).not.toMatch(/^completed /m);
    expect(r.stderr).toContain('async hook stack has become corrupted');
  });

  it('completes on a worker with the bench worker settings', async () => {
    const r = await runChild('bench');
    expect(r.stderr).not.toContain('async hook stack has become corrupted');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^completed ${HOLD_MS} 25000$`, 'm'));
  });
});
