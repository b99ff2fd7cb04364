import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';
import { HarnessError } from '../contract/errors.js';
import { locateCli } from './cli-locator.js';
import type { DevServerConfig } from './config.js';
import { registerDevSearchAttributes } from './search-attributes.js';

/** A running local dev server this process started. */
export interface StartedDevServer {
  readonly address: string;
  readonly namespace: string;
  readonly uiUrl: string;
  readonly pid: number;
  /** Stop the server and wait until its process is gone. Idempotent. */
  stop(): Promise<void>;
}

/** The configured port is held by something that is not a healthy Temporal server. */
export class PortInUseError extends HarnessError {
  constructor(address: string) {
    super(
      'devserver.port_in_use',
      `Port ${address} is taken by another process that is not a Temporal server. Stop it, change ` +
        `server.port in temporal-dev.yml, or point TEMPORAL_ADDRESS at an existing Temporal server.`,
      { address },
    );
  }
}

/** The server process exited or did not become healthy in time. */
export class DevServerStartError extends HarnessError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('devserver.start_failed', message, details);
  }
}

/**
 * The server runs under a tiny bash supervisor that holds our stdin: when this process exits for any
 * reason (even SIGKILL) the pipe closes, the supervisor sends SIGTERM to the server and waits for it.
 * So no temporal process outlives the harness that started it.
 */
const SUPERVISOR = [
  '"$@" </dev/null & srv=$!',
  "trap 'kill -TERM $srv 2>/dev/null; wait $srv; exit 0' TERM INT HUP",
  'while read -r _; do :; done',
  'kill -TERM $srv 2>/dev/null',
  'wait $srv',
].join('\n');

/** Wait until nothing listens on `ip:port` any more (or the timeout): true when it is free. */
async function portClosed(ip: string, port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await portIsFree(ip, port)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Is the TCP port free on this ip? */
export async function portIsFree(ip: string, port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const srv = createServer();
    srv.once('error', () => resolvePromise(false));
    srv.listen({ host: ip, port, exclusive: true }, () => srv.close(() => resolvePromise(true)));
  });
}

function tcpReachable(ip: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = connect({ host: ip, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolvePromise(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * True when a Temporal frontend at `address` (host:port) answers `GetSystemInfo` within `timeoutMs`.
 * Never throws. Uses no gRPC retries, so a dead port answers quickly.
 */
export async function isTemporalHealthy(address: string, timeoutMs = 2_000): Promise<boolean> {
  const sep = address.lastIndexOf(':');
  const ip = address.slice(0, sep);
  const port = Number(address.slice(sep + 1));
  if (!(await tcpReachable(ip, port, timeoutMs))) return false;
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: timeoutMs, interceptors: [] });
    await connection.withDeadline(Date.now() + timeoutMs, () =>
      connection!.workflowService.getSystemInfo({}),
    );
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

function startArgs(config: DevServerConfig): string[] {
  const s = config.server;
  const args = [
    'server',
    'start-dev',
    '--ip',
    s.ip,
    '--port',
    String(s.port),
    '--ui-port',
    String(s.uiPort),
    '--namespace',
    s.namespace,
    '--db-filename',
    s.dbFile,
    '--log-level',
    s.logLevel,
  ];
  if (s.uiCodecEndpoint !== undefined) args.push('--ui-codec-endpoint', s.uiCodecEndpoint);
  for (const [key, type] of Object.entries(config.searchAttributes))
    args.push('--search-attribute', `${key}=${type}`);
  for (const [key, value] of Object.entries(config.dynamicConfig)) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  return args;
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolvePromise) => {
    const timer = setTimeout(() => resolvePromise(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolvePromise(true);
    });
  });
}

/**
 * Start `temporal server start-dev` with the settings of temporal-dev.yml and wait until it is healthy
 * (a health check loop, not a fixed sleep). Registers the custom search attributes.
 * @throws PortInUseError when the port is held by something else; DevServerStartError when the server
 * exits early or is not healthy within `server.startTimeoutSeconds`; CliNotFoundError when no CLI exists and the SDK download fails.
 */
export async function startDevServer(
  config: DevServerConfig,
  log: (line: string) => void,
): Promise<StartedDevServer> {
  const { ip, port, uiPort, namespace, dbFile } = config.server;
  const address = `${ip}:${port}`;
  if (!(await portIsFree(ip, port))) throw new PortInUseError(address);
  if (!(await portIsFree(ip, uiPort))) throw new PortInUseError(`${ip}:${uiPort} (UI)`);
  const cli = await locateCli(config.cli.version, log);
  if (!cli) {
    const { startWithSdkDownload } = await import('./sdk-download.js');
    return startWithSdkDownload(config, log);
  }
  mkdirSync(dirname(dbFile), { recursive: true });
  const child = spawn('bash', ['-c', SUPERVISOR, 'temporal-supervisor', cli.path, ...startArgs(config)], {
    stdio: ['pipe', 'ignore', 'pipe'],
    detached: true,
  });
  const stderr: string[] = [];
  child.stderr?.on('data', (b: Buffer) => {
    stderr.push(b.toString());
    if (stderr.length > 200) stderr.shift();
  });
  // Keep our end of the pipe open for the life of this process, without keeping the event loop alive.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    child.stdin?.end();
    const killGroup = (): void => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    if (!(await waitForExit(child, 15_000))) {
      killGroup();
      await waitForExit(child, 5_000);
    }
    // Stopped means the port is closed: a next harness (CI's `npm test` after `npm start -- --exit`)
    // must not find this server still answering and reuse it while it goes away.
    if (!(await portClosed(ip, port, 10_000))) {
      killGroup();
      await portClosed(ip, port, 5_000);
    }
  };

  const deadline = Date.now() + config.server.startTimeoutSeconds * 1000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new DevServerStartError(
        `temporal server exited with code ${child.exitCode}:\n${stderr.join('').slice(-3000)}`,
      );
    }
    if (await isTemporalHealthy(address, 1_000)) {
      await registerDevSearchAttributes(address, namespace, config.searchAttributes, log);
      return { address, namespace, uiUrl: `http://${ip}:${uiPort}`, pid: child.pid!, stop };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new DevServerStartError(
    `temporal server did not become healthy within ${config.server.startTimeoutSeconds} s:\n${stderr.join('').slice(-3000)}`,
  );
}
