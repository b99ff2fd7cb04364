import { Connection, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { createHarnessClient } from '../client/harness-client.js';
import { loadDevServerConfig } from '../devserver/config.js';
import { externalTemporal } from '../devserver/external-target.js';
import { openEvidenceStore, type EvidenceStore } from '../activities/store/index.js';
import { tracingFromEnv } from '../telemetry/tracing.js';
import { harnessSettings } from '../worker/settings.js';
import { CliError, EXIT, notFoundError } from './errors.js';

/** A client connection of the CLI; close it when done. */
export interface CliTemporal {
  readonly client: Client;
  readonly namespace: string;
  readonly address: string;
  close(): Promise<void>;
}

/**
 * Connect to `TEMPORAL_ADDRESS` (with the standard Temporal environment configuration: namespace,
 * TLS, API key) or to the dev server of temporal-dev.yml. Never starts a server. With `HARNESS_OTEL`
 * on, the client is traced (docs/observability.md).
 * @throws CliError `cli.unreachable` (exit 4) when nothing answers, telling to run `harness dev` or `npm start`.
 */
export async function connectTemporal(): Promise<CliTemporal> {
  let options: Parameters<typeof Connection.connect>[0];
  let namespace: string;
  let address: string;
  const external = externalTemporal();
  if (external) {
    address = external.connectionOptions.address;
    options = external.connectionOptions;
    namespace = external.namespace;
  } else {
    const dev = loadDevServerConfig();
    address = `${dev.server.ip}:${dev.server.port}`;
    options = { address };
    namespace = process.env.TEMPORAL_NAMESPACE ?? dev.server.namespace;
  }
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...options, connectTimeout: '3s' });
  } catch (err) {
    throw new CliError(
      'cli.unreachable',
      `no Temporal server answers at ${address} (${(err as Error).message.split('\n')[0]}); ` +
        'start one with `harness dev` (or `npm start`), or set TEMPORAL_ADDRESS',
      EXIT.unreachable,
      { address },
    );
  }
  // HARNESS_OTEL: starts and signals become spans of the run's trace (flushed on close).
  const tracing = tracingFromEnv('agent-harness-cli');
  return {
    client: createHarnessClient({ connection, namespace, tracing }),
    namespace,
    address,
    close: async () => {
      await tracing?.shutdown();
      await connection.close();
    },
  };
}

/** The Temporal execution of a workflow id (latest run), as far as the CLI needs it. */
export interface ExecutionInfo {
  readonly workflowId: string;
  readonly runId: string;
  readonly type: string;
  /** RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, CONTINUED_AS_NEW, TIMED_OUT */
  readonly status: string;
  readonly startTime: Date;
  readonly closeTime: Date | undefined;
}

/** @throws CliError `cli.not_found` (exit 3) when no workflow has this id. */
export async function describeRun(handle: WorkflowHandle): Promise<ExecutionInfo> {
  try {
    const d = await handle.describe();
    return {
      workflowId: d.workflowId,
      runId: d.runId,
      type: d.type,
      status: d.status.name,
      startTime: d.startTime,
      closeTime: d.closeTime,
    };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError)
      throw notFoundError(`no workflow with id ${handle.workflowId}`, { workflowId: handle.workflowId });
    throw err;
  }
}

/**
 * Open the evidence store of `HARNESS_STORE_URL` (default: the repository's SQLite file).
 * @throws the store's errors (bad URL, unreachable database).
 */
export async function openCliStore(): Promise<EvidenceStore> {
  return openEvidenceStore(harnessSettings().storeUrl);
}
