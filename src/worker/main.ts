/**
 * A standalone worker process (`npm run worker`, `harness worker`): connects to TEMPORAL_ADDRESS or the
 * local dev server (it does not start one), composes tools, stores and model routes, and polls the
 * task queue until SIGINT/SIGTERM. Run as many as you like, on as many hosts as you like (use a
 * PostgreSQL evidence store across hosts). HARNESS_OTEL turns on OpenTelemetry tracing
 * (docs/observability.md); a HARNESS_WORKFLOW_BUNDLE must then be a traced bundle.
 * HARNESS_CODEC_KEYS_FILE (or HARNESS_CODEC_KEYS) turns on payload encryption (docs/security.md).
 * An app definition that does not compose (`composeAgentRun`) stops it before it connects.
 */
import { NativeConnection } from '@temporalio/worker';
import { loadHarnessApp, type HarnessApp } from './app.js';
import { composeAgentRun } from '../workflows/index.js';
import { loadDevServerConfig } from '../devserver/config.js';
import { externalTemporal } from '../devserver/external-target.js';
import { tracingConfigFromEnv } from '../telemetry/tracing-config.js';
import { tracingFromConfig } from '../telemetry/tracing.js';
import { createHarnessWorker } from './harness-worker.js';
import { installWorkerRuntime } from './runtime.js';
import { harnessSettings, redactUrl } from './settings.js';
import type { SearchAttributesMode } from '../devserver/search-attributes.js';
import { describePayloadCodec, payloadCodecFromEnv } from '../codec/codec-from-env.js';

/** What the command line may set for a worker process (over the environment's settings). */
export interface WorkerProcessOptions {
  /** Default `HARNESS_SEARCH_ATTRIBUTES`, else `register`. */
  readonly searchAttributes?: SearchAttributesMode;
}

/**
 * Run a worker for `app` until SIGINT/SIGTERM.
 * @throws before polling: a definition that does not compose, a bad `HARNESS_SEARCH_ATTRIBUTES`, a
 *   connection that fails, and (mode `check`, or `register` without the right) a namespace without
 *   the harness's search attributes (`temporal.search_attributes_missing`, naming the commands).
 */
export async function runWorkerProcess(app: HarnessApp, options: WorkerProcessOptions = {}): Promise<void> {
  // The whole definition, once: a bad one stops the worker here (a run checks only its own profile).
  composeAgentRun(app.definition);
  installWorkerRuntime();
  const settings = harnessSettings();
  const tracingConfig = tracingConfigFromEnv();
  const tracing = tracingFromConfig(tracingConfig, 'agent-harness-worker');
  const payloadCodec = payloadCodecFromEnv();
  const dev = loadDevServerConfig();
  // TEMPORAL_ADDRESS: that deployment, read as every part of the harness reads it (TLS, API key, profile)
  const external = externalTemporal();
  const address = external?.connectionOptions.address ?? `${dev.server.ip}:${dev.server.port}`;
  const namespace = external?.namespace ?? process.env.TEMPORAL_NAMESPACE ?? dev.server.namespace;
  const connection = await NativeConnection.connect(external?.connectionOptions ?? { address });
  const composition = await app.createComposition({ storeUrl: settings.storeUrl });
  const bundlePath = process.env.HARNESS_WORKFLOW_BUNDLE;
  const worker = await createHarnessWorker({
    connection,
    namespace,
    taskQueue: settings.taskQueue,
    composition,
    workflowsPath: app.workflowsPath,
    workflowBundle: bundlePath ? { codePath: bundlePath } : undefined,
    tracing,
    payloadCodec: payloadCodec ?? null,
    searchAttributes: options.searchAttributes ?? settings.searchAttributes,
  });
  const stop = (): void => worker.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  console.log(
    `worker ${composition.identity} (app ${app.name}) polling ${settings.taskQueue} on ${address} (namespace ${namespace}); store ${redactUrl(settings.storeUrl)}; tracing ${tracingConfig.mode}; ${describePayloadCodec(payloadCodec)}`,
  );
  await worker.run();
  await tracing?.shutdown();
  await composition.close();
  await connection.close();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  loadHarnessApp(process.argv[2])
    .then(runWorkerProcess)
    .catch((err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    });
}
