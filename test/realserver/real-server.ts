import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import pg from 'pg';
import { projectRoot } from '../../src/devserver/config.js';
import type { TemporalServerBuild } from '../../src/devserver/server-build.js';
import type { TestPostgres } from '../support/postgres.js';
import type { TierCertificates } from './certs.js';

const run = promisify(execFile);

/** The committed configuration the tier runs (docs/deploy.md links it). */
export const SERVER_CONFIG_DIR = join(projectRoot, 'deploy', 'temporal');
export const SERVER_CONFIG_ENV = 'temporal-server';
export const DYNAMIC_CONFIG = join(SERVER_CONFIG_DIR, 'dynamic-config.yaml');

/** A running real Temporal server of the tier. */
export interface RealServer {
  /** host:port of the public frontend (mTLS). */
  readonly address: string;
  /** The Prometheus scrape address. */
  readonly metricsAddress: string;
  /** Everything it printed so far (warnings and errors only: log level warn). */
  output(): string;
  /** SIGTERM, then SIGKILL after 10 s; waits until it is gone. Idempotent. */
  stop(): Promise<void>;
}

export interface StartRealServerOptions {
  readonly build: TemporalServerBuild;
  readonly postgres: TestPostgres;
  readonly certs: TierCertificates;
  readonly log: (line: string) => void;
  /** Client certificate (and API key, with an authorizer) the readiness check presents. */
  readonly probe: { readonly cert: string; readonly key: string; readonly apiKey?: string };
  /** The JWKS API keys are checked against: turns the server's authorizer on (else `--allow-no-auth`). */
  readonly jwksUrl?: string;
  /** How long the frontend may take to answer (default 90 s). */
  readonly readyWithinMs?: number;
}

/**
 * Create the `temporal` role (random password, never printed) and, with the server's SQL tool, both
 * databases with their schema: `setup-schema -v 0.0`, then `update-schema -d .../versioned`.
 * @throws the SQL tool's error (its output in the message).
 */
async function setupDatabases(
  build: TemporalServerBuild,
  postgres: TestPostgres,
): Promise<{ address: string; password: string }> {
  const url = new URL(postgres.url);
  const password = randomBytes(12).toString('hex');
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE temporal LOGIN CREATEDB PASSWORD '${password}'`);
  } finally {
    await admin.end();
  }
  const base = ['--plugin', 'postgres12', '--ep', url.hostname, '-p', url.port, '-u', 'temporal'];
  const env = { ...process.env, SQL_PASSWORD: password };
  for (const [db, schema] of [
    ['temporal', 'temporal'],
    ['temporal_visibility', 'visibility'],
  ] as const) {
    const tool = (args: string[]) => run(build.sqlTool, [...base, '--db', db, ...args], { env });
    await tool(['create-database']);
    await tool(['setup-schema', '-v', '0.0']);
    await tool(['update-schema', '-d', join(build.postgresSchemaDir, schema, 'versioned')]);
  }
  return { address: `${url.hostname}:${url.port}`, password };
}

/**
 * A free loopback port below 32768: the cluster_membership table keeps a service's membership port
 * as a PostgreSQL `smallint`, so a port from the OS's ephemeral range (32768+) stops the server at
 * start ("value out of range for type smallint").
 */
async function freeLowPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
}

/** The services the one server process runs (all of them: a single-host cluster). */
const SERVICES = ['frontend', 'internal-frontend', 'history', 'matching', 'worker'] as const;

const PORTS = ['FRONTEND', 'INTERNAL_FRONTEND', 'HISTORY', 'MATCHING', 'WORKER'] as const;

/** The environment deploy/temporal/temporal-server.yaml is rendered from, with fresh loopback ports. */
async function serverEnv(
  certs: TierCertificates,
  db: { address: string; password: string },
): Promise<Record<string, string>> {
  const taken = new Set<number>();
  const freePort = () => freeLowPort(taken);
  const env: Record<string, string> = {
    TEMPORAL_SERVER_DB_ADDRESS: db.address,
    TEMPORAL_SERVER_DB_USER: 'temporal',
    TEMPORAL_SERVER_DB_PASSWORD: db.password,
    TEMPORAL_SERVER_SHARDS: '4',
    TEMPORAL_SERVER_TLS_DIR: certs.dir,
    TEMPORAL_SERVER_TLS_SERVER_NAME: certs.serverName,
    TEMPORAL_SERVER_METRICS_ADDRESS: `127.0.0.1:${await freePort()}`,
    TEMPORAL_SERVER_DYNAMIC_CONFIG: DYNAMIC_CONFIG,
    TEMPORAL_SERVER_FRONTEND_HTTP_PORT: String(await freePort()),
    TEMPORAL_SERVER_INTERNAL_FRONTEND_HTTP_PORT: String(await freePort()),
  };
  for (const service of PORTS) {
    env[`TEMPORAL_SERVER_${service}_PORT`] = String(await freePort());
    env[`TEMPORAL_SERVER_${service}_MEMBERSHIP_PORT`] = String(await freePort());
  }
  return env;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

/**
 * A detached shell that SIGKILLs the server when this process dies without stopping it (a killed
 * test run), so no server outlives the tier by more than a second.
 */
function watchdog(serverPid: number): void {
  const script = `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${serverPid} 2>/dev/null; do sleep 1; done; kill -9 ${serverPid} 2>/dev/null`;
  spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' }).unref();
}

async function waitUntilServing(
  address: string,
  options: StartRealServerOptions,
  child: ChildProcess,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + (options.readyWithinMs ?? 90_000);
  const tls = {
    serverNameOverride: options.certs.serverName,
    serverRootCACertificate: readFileSync(options.certs.ca),
    clientCertPair: { crt: readFileSync(options.probe.cert), key: readFileSync(options.probe.key) },
  };
  let last = '';
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `the Temporal server exited (${child.exitCode ?? child.signalCode}):\n${output().slice(-4000)}`,
      );
    try {
      const connection = await Connection.connect({
        address,
        tls,
        connectTimeout: '2s',
        ...(options.probe.apiKey !== undefined ? { apiKey: options.probe.apiKey } : {}),
      });
      try {
        await connection.workflowService.listNamespaces({});
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline)
      throw new Error(
        `the Temporal server did not answer over mTLS at ${address}: ${last}\n${output().slice(-4000)}`,
      );
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Set up the databases and start `temporal-server start` with deploy/temporal/temporal-server.yaml on
 * free loopback ports; resolves once the frontend answers over mTLS.
 * @throws when the schema setup fails, the server exits, or it does not answer in time (it is
 *   stopped then; the message carries its last output).
 */
export async function startRealServer(options: StartRealServerOptions): Promise<RealServer> {
  const started = Date.now();
  const db = await setupDatabases(options.build, options.postgres);
  options.log(`schema set up in ${Date.now() - started} ms`);
  const env = await serverEnv(options.certs, db);
  if (options.jwksUrl !== undefined) env.TEMPORAL_SERVER_JWKS_URL = options.jwksUrl;
  const child = spawn(
    options.build.server,
    [
      ...['--root', '/', '--config', SERVER_CONFIG_DIR, '--env', SERVER_CONFIG_ENV],
      ...(options.jwksUrl === undefined ? ['--allow-no-auth'] : []),
      'start',
      // internal-frontend is not among the services started by default
      ...SERVICES.flatMap((service) => ['--service', service]),
    ],
    {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  watchdog(child.pid ?? 0);
  let seen = '';
  const collect = (b: Buffer): void => {
    seen += b.toString();
    if (seen.length > 200_000) seen = seen.slice(-100_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited(child);
      clearTimeout(timer);
    }
  };
  const address = `127.0.0.1:${env.TEMPORAL_SERVER_FRONTEND_PORT}`;
  try {
    await waitUntilServing(address, options, child, () => seen);
  } catch (err) {
    await stop();
    throw err;
  }
  options.log(
    `Temporal server v${options.build.version} serving at ${address} (mTLS${options.jwksUrl !== undefined ? ' and API keys' : ''}) after ${Date.now() - started} ms`,
  );
  return {
    address,
    metricsAddress: env.TEMPORAL_SERVER_METRICS_ADDRESS!,
    output: () => seen,
    stop,
  };
}
