import { readFileSync } from 'node:fs';
import type { PayloadCodec } from '@temporalio/common';
import type {
  NativeConnection,
  WorkerDeploymentOptions,
  WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import { createMemoryActivities } from '../activities/memory-activities.js';
import { createModelActivities } from '../activities/model-activities.js';
import { createRunActivities } from '../activities/run-activities.js';
import { createToolActivities } from '../activities/tool-activities.js';
import type { WorkerComposition } from './app.js';
import { HarnessError } from '../contract/errors.js';
import { TRACED_BUNDLE_MARKER } from '../contract/traced-bundle.js';
import type { HarnessTracing } from '../telemetry/tracing.js';
import { harnessDataConverter } from '../codec/data-converter.js';
import { payloadCodecFromEnv } from '../codec/codec-from-env.js';
import { prepareSearchAttributes, type SearchAttributesMode } from '../devserver/search-attributes.js';

/** How long one workflow activation may run in the sandbox: under the run's 30 s workflow task timeout. */
export const RUN_ISOLATE_EXECUTION_TIMEOUT = '25 seconds';

export interface HarnessWorkerOptions {
  readonly connection: NativeConnection;
  readonly namespace: string;
  readonly taskQueue: string;
  readonly composition: WorkerComposition;
  /** The app's workflows module (exports `agentRun = defineAgentRun(...)`), bundled at start. */
  readonly workflowsPath?: string;
  /**
   * A pre-built bundle (tests, benchmarks) instead of `workflowsPath`. With `tracing` it must be
   * built with `bundleWorkflows({ tracing: true })`, without it must not.
   */
  readonly workflowBundle?: WorkflowBundleWithSourceMap | { codePath: string };
  readonly maxCachedWorkflows?: number;
  /** OpenTelemetry tracing (`tracingFromEnv`); absent means no interceptors, no sinks, no spans. */
  readonly tracing?: HarnessTracing;
  /**
   * The payload codec (docs/security.md). Default: the environment's (`HARNESS_CODEC_KEYS_FILE` or
   * `HARNESS_CODEC_KEYS`), off when neither is set; `null` turns it off. Clients of the same runs need
   * the same keys.
   */
  readonly payloadCodec?: PayloadCodec | null;
  /**
   * Temporal Worker Versioning (docs/control-plane.md, "Rolling out workflow code"): the worker
   * deployment version this worker serves (`deploymentName`, `buildId`) and the default versioning
   * behavior of its workflows (`PINNED`: a run stays on the version it started on). Absent:
   * unversioned (the workflow code is kept compatible with `patched()`).
   */
  readonly deployment?: WorkerDeploymentOptions;
  /**
   * The namespace's search attributes (`AgentStatus`, … every run sets them), checked before the
   * worker is created: `register` (default) registers the missing ones through the operator service,
   * `check` only fails naming them, `skip` does neither (README, "Use an existing Temporal server").
   */
  readonly searchAttributes?: SearchAttributesMode;
}

/** All activities of the harness, bound to a composition. */
export function harnessActivities(c: WorkerComposition) {
  // The declared erasable fields are part of each call's config pin (run-config-digest.ts).
  const erasable = c.erasable ? { erasable: c.erasable } : {};
  return {
    ...createRunActivities({
      registry: c.registry,
      store: c.store,
      defaultModelRoute: c.defaultModelRoute,
      configDigest: c.configDigest,
      principals: c.principals,
      models: c.models,
      ...(c.bundles ? { bundles: c.bundles } : {}),
      ...(c.attestation ? { attestation: c.attestation } : {}),
      ...erasable,
    }),
    ...createToolActivities({
      registry: c.registry,
      store: c.store,
      identity: c.identity,
      ...(c.attestation ? { attestation: c.attestation } : {}),
      models: c.models,
      ...erasable,
    }),
    ...createModelActivities({
      registry: c.registry,
      store: c.store,
      models: c.models,
      ...(c.attestation ? { attestation: c.attestation } : {}),
      ...erasable,
    }),
    ...createMemoryActivities({ store: c.store }),
  };
}

/**
 * @throws HarnessError `worker.bundle_tracing_mismatch` when a traced worker gets an untraced bundle
 *   (workflow spans would be lost) or an untraced worker a traced bundle (its span sink is missing).
 */
function checkBundle(bundle: WorkflowBundleWithSourceMap | { codePath: string }, traced: boolean): void {
  const code = 'code' in bundle ? bundle.code : readFileSync(bundle.codePath, 'utf8');
  const bundleTraced = code.includes(TRACED_BUNDLE_MARKER);
  if (bundleTraced === traced) return;
  throw new HarnessError(
    'worker.bundle_tracing_mismatch',
    traced
      ? 'tracing is on but the workflow bundle has no tracing interceptors; build it with bundleWorkflows({ tracing: true }) or let the worker bundle'
      : 'the workflow bundle has tracing interceptors but tracing is off; use an untraced bundle or turn tracing on (HARNESS_OTEL)',
    { traced, bundleTraced },
  );
}

/**
 * A worker running the app's workflows (`agentRun`) with the harness activities bound to the
 * composition's tools, evidence store and model routes.
 * @throws HarnessError `worker.no_workflows` when neither `workflowsPath` nor `workflowBundle` is given,
 *   `worker.bundle_tracing_mismatch` (see checkBundle), `temporal.search_attributes_missing` (naming
 *   them and the `temporal operator search-attribute create` commands) when the namespace lacks the
 *   harness's search attributes and they could not be registered (or `searchAttributes` is `check`),
 *   `temporal.search_attributes_conflict` when one has another type, CodecError `codec.keys_invalid` for bad codec
 *   keys in the environment, and the SDK's bundling and connection errors.
 */
export async function createHarnessWorker(o: HarnessWorkerOptions): Promise<Worker> {
  const { bundleWorkflows } = await import('./bundle.js');
  const tracing = o.tracing;
  if (o.workflowBundle) checkBundle(o.workflowBundle, tracing !== undefined);
  else if (!o.workflowsPath)
    throw new HarnessError(
      'worker.no_workflows',
      'createHarnessWorker needs workflowsPath (or a workflowBundle)',
    );
  await prepareSearchAttributes(o.connection, o.namespace, o.searchAttributes ?? 'register', (line) =>
    console.error(line),
  );
  const codec = o.payloadCodec === undefined ? payloadCodecFromEnv() : (o.payloadCodec ?? undefined);
  const dataConverter = harnessDataConverter(codec);
  return Worker.create({
    connection: o.connection,
    namespace: o.namespace,
    taskQueue: o.taskQueue,
    identity: o.composition.identity,
    workflowBundle:
      o.workflowBundle ??
      (await bundleWorkflows({ workflowsPath: o.workflowsPath!, tracing: tracing !== undefined })),
    activities: harnessActivities(o.composition),
    maxCachedWorkflows: o.maxCachedWorkflows,
    // A burst of signals is taken in one activation (RUN_WORKFLOW_TASK_TIMEOUT, start-run.ts): past
    // the SDK's default of 5 s, Node's vm timeout can fire inside a microtask checkpoint and abort the
    // process ("async hook stack has become corrupted", nodejs/node#38503). SDK 1.24 takes the option
    // (its defaults are spread under the options) but does not declare it in its types.
    ...({ isolateExecutionTimeout: RUN_ISOLATE_EXECUTION_TIMEOUT } as object),
    ...(o.deployment ? { workerDeploymentOptions: o.deployment } : {}),
    ...(dataConverter ? { dataConverter } : {}),
    ...(tracing
      ? { interceptors: { activity: tracing.activityInterceptors() }, sinks: tracing.sinks() }
      : {}),
  });
}
