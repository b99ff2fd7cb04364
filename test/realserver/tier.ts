import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { msToTs } from '@temporalio/common/lib/time.js';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { inject } from 'vitest';
import { cliCacheDir } from '../../src/devserver/cli-locator.js';
import { loadDevServerConfig } from '../../src/devserver/config.js';
import { mintApiKey, permissionsFor, type TierRole } from './api-keys.js';
import { issueClientCertificate } from './certs.js';

const run = promisify(execFile);

/** What the real-server global setup hands every test file (test/setup/realserver-global.ts). */
export interface RealServerContext {
  /** host:port of the public frontend (mTLS, client certificate required). */
  readonly address: string;
  /** A namespace made by the setup, with the harness's search attributes registered. */
  readonly namespace: string;
  /** The name the frontend certificate is issued for (TEMPORAL_TLS_SERVER_NAME). */
  readonly serverName: string;
  /** The folder with the CA (`ca.pem`, and its key to issue client certificates). */
  readonly certDir: string;
  /** The PostgreSQL database the evidence stores go in (a fresh schema each: withSchema). */
  readonly storeUrl: string;
  /** The tests' workflow bundle. */
  readonly bundlePath: string;
  /** The server's Prometheus scrape URL. */
  readonly metricsUrl: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** null: the tier is skipped (the setup printed why). */
    realServer: RealServerContext | null;
  }
}

/** The tier's context, or null when it is skipped (then every test of the tier is skipped). */
export function realServer(): RealServerContext | null {
  return inject('realServer');
}

/** {@link realServer}, for code that runs only when the tier runs. @throws when it is skipped. */
export function tier(): RealServerContext {
  const ctx = realServer();
  if (!ctx) throw new Error('the real-server tier is skipped');
  return ctx;
}

/**
 * The standard Temporal environment configuration (@temporalio/envconfig) of a process that talks to
 * the tier's server as `commonName`: its own client certificate (issued on first use) and, when the
 * server checks API keys, an API key with `role` on the namespace (default `write`: run workers,
 * start and decide runs; `admin` also registers namespaces and search attributes).
 */
export function tierEnv(
  commonName: string,
  namespace?: string,
  ctx: RealServerContext = tier(),
  role: TierRole = 'write',
): Record<string, string> {
  const client = issueClientCertificate(ctx.certDir, commonName);
  const apiKey = mintApiKey(ctx.certDir, commonName, permissionsFor(namespace ?? ctx.namespace, role));
  return {
    ...(apiKey !== undefined ? { TEMPORAL_API_KEY: apiKey } : {}),
    TEMPORAL_ADDRESS: ctx.address,
    TEMPORAL_NAMESPACE: namespace ?? ctx.namespace,
    TEMPORAL_TLS_CLIENT_CERT_PATH: client.cert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: client.key,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(ctx.certDir, 'ca.pem'),
    TEMPORAL_TLS_SERVER_NAME: ctx.serverName,
  };
}

/** A client and a worker connection to the tier's server, configured from {@link tierEnv} as the harness does. */
export interface TierConnections {
  readonly client: Client;
  readonly connection: Connection;
  readonly nativeConnection: NativeConnection;
  readonly namespace: string;
  close(): Promise<void>;
}

let quiet = false;

/** Worker logs of a test process: warnings and errors only (as test/support/temporal.ts does). */
function installQuietRuntime(): void {
  if (quiet) return;
  quiet = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    /* another module of this process installed it */
  }
}

/** Connect as `commonName` through @temporalio/envconfig (the path `TEMPORAL_ADDRESS` takes in the harness). */
export async function connectTier(
  commonName: string,
  namespace?: string,
  ctx: RealServerContext = tier(),
  role: TierRole = 'write',
): Promise<TierConnections> {
  installQuietRuntime();
  const loaded = loadClientConnectConfig({
    overrideEnvVars: tierEnv(commonName, namespace, ctx, role),
    disableFile: true,
  });
  const options = { ...loaded.connectionOptions, address: loaded.connectionOptions.address ?? ctx.address };
  const connection = await Connection.connect(options);
  const nativeConnection = await NativeConnection.connect(options);
  const ns = loaded.namespace ?? ctx.namespace;
  return {
    client: new Client({ connection, namespace: ns }),
    connection,
    nativeConnection,
    namespace: ns,
    close: async () => {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

/**
 * Run the pinned `temporal` CLI against the tier's server over mTLS, as an operator would (the
 * connection flags are appended). @throws with the CLI's stderr when it exits non-zero.
 */
export async function temporalCli(args: readonly string[], namespace?: string): Promise<string> {
  const named = args.indexOf('--namespace');
  const env = tierEnv('operator-cli', named >= 0 ? args[named + 1] : namespace, tier(), 'admin');
  const cli = join(cliCacheDir(loadDevServerConfig().cli.version), 'temporal');
  const flags = [
    '--address',
    env.TEMPORAL_ADDRESS!,
    '--tls-cert-path',
    env.TEMPORAL_TLS_CLIENT_CERT_PATH!,
    '--tls-key-path',
    env.TEMPORAL_TLS_CLIENT_KEY_PATH!,
    '--tls-ca-path',
    env.TEMPORAL_TLS_SERVER_CA_CERT_PATH!,
    '--tls-server-name',
    env.TEMPORAL_TLS_SERVER_NAME!,
  ];
  const withNamespace = args.includes('--namespace')
    ? flags
    : [...flags, '--namespace', env.TEMPORAL_NAMESPACE!];
  try {
    // the API key goes in the environment (TEMPORAL_API_KEY), never on a command line an error could print
    const { stdout } = await run(cli, [...args, ...withNamespace], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/',
        ...(env.TEMPORAL_API_KEY !== undefined ? { TEMPORAL_API_KEY: env.TEMPORAL_API_KEY } : {}),
      },
    });
    return stdout;
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`temporal ${args.join(' ')} failed: ${e.stderr ?? e.message}`, { cause: err });
  }
}

/**
 * Register `namespace` (retention one day) over mTLS and wait until the frontend serves it.
 * @throws the server's error, or when it is not served within 30 s.
 */
export async function registerNamespace(connection: Connection, namespace: string): Promise<void> {
  await connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await connection.operatorService.listSearchAttributes({ namespace });
      await connection.workflowService.countWorkflowExecutions({ namespace, query: '' });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
