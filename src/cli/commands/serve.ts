import { NativeConnection } from '@temporalio/worker';
import type { HarnessApp } from '../../worker/app.js';
import { loadDevServerConfig } from '../../devserver/config.js';
import { resolveTemporal } from '../../devserver/temporal-target.js';
import { tracingFromEnv } from '../../telemetry/tracing.js';
import { createHarnessWorker } from '../../worker/harness-worker.js';
import { runWorkerProcess } from '../../worker/main.js';
import { installWorkerRuntime } from '../../worker/runtime.js';
import { harnessSettings, parseSearchAttributesMode } from '../../worker/settings.js';
import type { SearchAttributesMode } from '../../devserver/search-attributes.js';
import { describePayloadCodec, payloadCodecFromEnv } from '../../codec/codec-from-env.js';
import { EXIT, usageError } from '../errors.js';
import type { Output } from '../output.js';

/**
 * `harness worker`: the standalone worker process (src/worker/main.ts) until SIGINT/SIGTERM.
 * @throws CliError (usage, exit 2) for a `--search-attributes` that is not a mode; what
 *   {@link runWorkerProcess} throws.
 */
export async function workerCommand(app: HarnessApp, o: { searchAttributes?: string } = {}): Promise<number> {
  let searchAttributes: SearchAttributesMode | undefined;
  try {
    if (o.searchAttributes !== undefined)
      searchAttributes = parseSearchAttributesMode(o.searchAttributes, '--search-attributes');
  } catch (err) {
    throw usageError((err as Error).message, { option: '--search-attributes' });
  }
  await runWorkerProcess(app, searchAttributes ? { searchAttributes } : {});
  return EXIT.ok;
}

/**
 * `harness dev`: start (or reuse) the dev server of temporal-dev.yml (or `--config`), run a worker in
 * this process, print the Web UI URL; Ctrl-C (SIGINT) or SIGTERM stops the worker, then the server if
 * this process started it.
 * @throws the dev server's errors (port taken, CLI build failed) and the composition's.
 */
export async function devCommand(app: HarnessApp, o: { config?: string }, out: Output): Promise<number> {
  installWorkerRuntime();
  const target = await resolveTemporal({
    config: o.config ? loadDevServerConfig(o.config) : undefined,
    log: (l) => out.progress(l),
  });
  try {
    const settings = harnessSettings();
    const composition = await app.createComposition({ storeUrl: settings.storeUrl });
    const tracing = tracingFromEnv('agent-harness-worker');
    const payloadCodec = payloadCodecFromEnv();
    const connection = await NativeConnection.connect(target.connectionOptions);
    const bundlePath = process.env.HARNESS_WORKFLOW_BUNDLE;
    if (!bundlePath) out.progress('bundling the workflow code…');
    const worker = await createHarnessWorker({
      connection,
      namespace: target.namespace,
      taskQueue: settings.taskQueue,
      composition,
      workflowsPath: app.workflowsPath,
      workflowBundle: bundlePath ? { codePath: bundlePath } : undefined,
      tracing,
      payloadCodec: payloadCodec ?? null,
    });
    const stop = (): void => {
      out.progress('stopping…');
      worker.shutdown();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    out.line(
      `Temporal: ${target.mode} dev server at ${target.connectionOptions.address} (namespace ${target.namespace})`,
    );
    out.line(`Web UI: ${target.uiUrl ?? '(unknown; set TEMPORAL_UI_URL)'}`);
    out.line(
      `worker ${composition.identity} polling ${settings.taskQueue}; ${describePayloadCodec(payloadCodec)}; Ctrl-C to stop`,
    );
    out.data({
      mode: target.mode,
      address: target.connectionOptions.address,
      namespace: target.namespace,
      uiUrl: target.uiUrl ?? null,
      taskQueue: settings.taskQueue,
    });
    try {
      await worker.run();
    } finally {
      await tracing?.shutdown();
      await composition.close();
      await connection.close();
    }
    out.progress('worker stopped');
    return EXIT.ok;
  } finally {
    await target.stop();
  }
}
