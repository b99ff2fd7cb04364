import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cliCacheDir } from '../../src/devserver/cli-locator.js';
import { loadDevServerConfig } from '../../src/devserver/config.js';

const run = promisify(execFile);

/**
 * A Temporal dev server a test starts itself, straight from the cached Temporal CLI binary and
 * without the harness's dev wrapper (no `--search-attribute` flags, no temporal-dev.yml settings):
 * what an outside team's own server looks like. In memory, headless, on free ports.
 */
export interface OwnTemporalServer {
  readonly address: string;
  readonly cli: string;
  /** `temporal <args> --address <this server>`; resolves with stdout. */
  temporal(args: readonly string[]): Promise<string>;
  /** SIGTERM the server and wait for it to exit (SIGKILL after 10 s). Idempotent. */
  stop(): Promise<void>;
}

/** A TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveExit) => child.once('exit', () => resolveExit()));
}

/**
 * Start `temporal server start-dev` on free ports and wait until the frontend answers.
 * @throws when the cached CLI is missing (run `npm run dev:server` once) or the server is not up in 60 s.
 */
export async function startOwnTemporalServer(): Promise<OwnTemporalServer> {
  const cli = join(cliCacheDir(loadDevServerConfig().cli.version), 'temporal');
  if (!existsSync(cli)) throw new Error(`no cached Temporal CLI at ${cli}`);
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const args = ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port)];
  args.push('--http-port', String(await freePort()), '--metrics-port', String(await freePort()));
  args.push('--log-level', 'error');
  const child = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  // Never outlive the test process (a hook that times out never reaches stop()).
  const reap = () => child.kill('SIGKILL');
  process.once('exit', reap);
  child.once('exit', () => process.off('exit', reap));
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)));
  const temporal = async (more: readonly string[]): Promise<string> =>
    (await run(cli, [...more, '--address', address], { timeout: 30_000 })).stdout;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited(child);
    clearTimeout(timer);
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`temporal server start-dev exited: ${stderr}`);
    try {
      await temporal(['operator', 'namespace', 'describe', '--namespace', 'default']);
      return { address, cli, temporal, stop };
    } catch (err) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`the Temporal server at ${address} did not come up: ${String(err)} ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
