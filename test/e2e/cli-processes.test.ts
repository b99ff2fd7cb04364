import { privateDevConfig } from '../support/private-dev-config.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { eventually, pidsMatching, waitForExit, waitForOutput } from '../support/processes.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { runCli, spawnCli } from './cli-support.js';

const REFUSED_TASK = JSON.stringify({ message: 'refund ORD-2001 please', customerId: 'C1001' });

/** Settings of a CLI worker: a private task queue, temp stores, the bundle built by the global setup. */
function workerEnv(name: string): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), `harness-${name}-`));
  return {
    HARNESS_TASK_QUEUE: uniqueTaskQueue(name),
    HARNESS_STORE_URL: `sqlite:${join(dir, 'evidence.db')}`,
    HARNESS_REFUND_DB: join(dir, 'refund.db'),
    HARNESS_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
  };
}

/** A private temporal-dev.yml on other ports and a throwaway db (the shared server stays untouched). */
function privateConfig(port: number): { path: string; dbFile: string } {
  return privateDevConfig(port, 'harness-cli-dev-');
}

describe('harness worker and harness dev as processes', () => {
  const children: ReturnType<typeof spawnCli>[] = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  });

  it('`harness worker` runs runs started by `harness start` and stops on SIGINT', async () => {
    const env = workerEnv('cli-worker');
    const worker = spawnCli(['worker'], env);
    children.push(worker);
    await waitForOutput(worker, /polling/, 90_000);
    const r = await runCli(['start', 'refund.graph', '--input', REFUSED_TASK, '--wait', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'succeeded', output: { outcome: 'refused' } });
    worker.kill('SIGINT');
    expect(await waitForExit(worker)).toBe(0);
  });

  it.skipIf(Boolean(process.env.TEMPORAL_ADDRESS))(
    '`harness dev` reuses the running dev server, prints the UI URL, and Ctrl-C stops the worker',
    async () => {
      const env = workerEnv('cli-dev');
      const dev = spawnCli(['dev'], env);
      children.push(dev);
      const output = await waitForOutput(dev, /Ctrl-C to stop/, 90_000);
      expect(output).toContain('Temporal: reused dev server at 127.0.0.1:7233');
      expect(output).toContain(`Web UI: ${inject('temporalUiUrl')}`);
      const r = await runCli(['start', 'refund.graph', '--input', REFUSED_TASK, '--wait'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('ended: succeeded');
      dev.kill('SIGINT');
      expect(await waitForExit(dev)).toBe(0);
      expect(await fetch(`${inject('temporalUiUrl')}/`).then((res) => res.status)).toBe(200);
    },
  );

  it.skipIf(Boolean(process.env.TEMPORAL_ADDRESS))(
    '`harness dev --config` starts its own server and Ctrl-C stops worker and server',
    async () => {
      const port = 17283;
      const { path, dbFile } = privateConfig(port);
      const env = workerEnv('cli-dev-own');
      const dev = spawnCli(['dev', '--config', path], env);
      children.push(dev);
      const output = await waitForOutput(dev, /Ctrl-C to stop/, 120_000);
      expect(output).toContain(`Temporal: started dev server at 127.0.0.1:${port}`);
      expect(output).toContain(`Web UI: http://127.0.0.1:${port + 1}`);
      expect(pidsMatching(dbFile).length).toBeGreaterThan(0);
      const r = await runCli(['start', 'refund.graph', '--input', REFUSED_TASK, '--wait', '--json'], {
        ...env,
        TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'succeeded' });
      dev.kill('SIGINT');
      expect(await waitForExit(dev)).toBe(0);
      expect(await eventually(() => pidsMatching(dbFile).length === 0, 20_000)).toBe(true);
    },
  );
});
