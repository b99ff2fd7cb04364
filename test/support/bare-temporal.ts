import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { cliCacheDir } from '../../src/devserver/cli-locator.js';
import { loadDevServerConfig } from '../../src/devserver/config.js';

/** A Temporal dev server started without the harness's dev wrapper: no custom search attributes. */
export interface BareTemporal {
  readonly address: string;
  readonly namespace: string;
  stop(): Promise<void>;
}

/** A port free on the loopback interface right now. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * `temporal server start-dev --headless` of the pinned (cached) CLI on a free loopback port, with a
 * throwaway db file and none of temporal-dev.yml's `--search-attribute` flags: a namespace as a plain
 * Temporal server has it. `stop()` kills its process group and removes the folder.
 * @throws when the server is not healthy within 60 s (with the end of its output).
 */
export async function startBareTemporal(): Promise<BareTemporal> {
  const cli = join(cliCacheDir(loadDevServerConfig().cli.version), 'temporal');
  const port = await freeLoopbackPort();
  const dir = mkdtempSync(join(tmpdir(), 'harness-bare-temporal-'));
  const address = `127.0.0.1:${port}`;
  const child = spawn(
    cli,
    [
      'server',
      'start-dev',
      '--headless',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--db-filename',
      join(dir, 'bare.db'),
      '--log-level',
      'error',
      '--dynamic-config-value',
      'frontend.enableServerVersionCheck=false',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const output: string[] = [];
  child.stderr?.on('data', (b: Buffer) => output.push(b.toString()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        /* gone */
      }
      const killed = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
      }, 10_000);
      await exited;
      clearTimeout(killed);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const c = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await c.withDeadline(Date.now() + 2_000, () =>
          c.operatorService.listSearchAttributes({ namespace: 'default' }),
        );
        return { address, namespace: 'default', stop };
      } finally {
        await c.close();
      }
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  await stop();
  throw new Error(`bare Temporal server at ${address} did not start:\n${output.join('').slice(-2000)}`);
}
