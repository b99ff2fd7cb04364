/**
 * `agent-harness/worker`: the worker side. Tools with executors (the tool registry), the evidence
 * store, the model gateway and providers, the context builder, the MCP adapter, tracing, and
 * `createHarnessWorker`, which runs an app's workflows module with the harness activities. Node only;
 * workflow code imports `agent-harness/workflow` instead.
 */
export * from '../contract/index.js';
export * from './tools/index.js';
export * from './mcp/index.js';
export {
  loadHarnessApp,
  type AppCompositionOptions,
  type FailureCase,
  type HarnessApp,
  type WorkerComposition,
} from './app.js';
export * from '../codec/index.js';
export { createHarnessWorker, harnessActivities, type HarnessWorkerOptions } from './harness-worker.js';
export { composeWorker, type ComposeWorkerOptions, type ModelRouteSpec } from './compose-worker.js';
export {
  loadPrincipalRegistry,
  principalsFrom,
  resolvePrincipals,
  NO_PRINCIPALS,
  type LoadedPrincipals,
} from './authz/principal-registry.js';
export { bundleWorkflows, type BundleOptions } from './bundle.js';
export { installWorkerRuntime } from './runtime.js';
export { harnessSettings, redactUrl, type HarnessSettings } from './settings.js';
export { ModelRouter } from './activities/model-router.js';
export { createTracing, tracingFromEnv, type HarnessTracing } from './telemetry/tracing.js';
export { otelTraceIdForRun } from '../core/workflow/run-trace.js';
export {
  openEvidenceStore,
  parseStoreUrl,
  StoreError,
  STORE_ERROR_CODES,
  SCHEMA_VERSION as EVIDENCE_STORE_SCHEMA_VERSION,
  type EvidenceStore,
  type InvocationIntent,
  type InvocationResult,
  type InvocationRecord as StoreInvocationRecord,
  type StoredEvent,
  type StoredArtifact,
} from './store/index.js';
export type { ModelProvider, ModelOutput, ModelMessage, ModelToolSpec } from './model/types.js';
export { providerFromEnv } from './model/provider-from-env.js';
export { loadModelRoutes, ModelRoutes } from './model/model-routes.js';
export { BundleCatalog, loadBundleCatalog, type LoadedBundle } from './bundles/bundle-catalog.js';
export { BundleError } from './bundles/bundle-error.js';
export { assignArm, rolloutBucket } from './bundles/rollout-arm.js';
export {
  resolveRolloutSecret,
  ROLLOUT_SECRET_ENV,
  ROLLOUT_SECRET_FILE_ENV,
  type RolloutSecret,
} from './bundles/rollout-secret.js';
export { parseModelRoutes, type ModelRoutesFile } from './model/routes-file.js';
export { ScriptedProvider } from './model/scripted-provider.js';
export { parseModelScript, type ModelScript, type ScriptEntry } from './model/scripted-script.js';
export { ModelError } from './model/errors.js';
export { buildContext } from './context/build-context.js';
export { renderContext } from './context/render.js';
export {
  planRequest,
  renderRequest,
  requestTokens,
  type RequestBudget,
  type RequestPackageInput,
  type RequestPackagePlan,
  type TranscriptGroup,
} from './context/request-package.js';
export {
  contextMetricsOfRun,
  loadRunPackages,
  stepsOfEvents,
  type ContextLabels,
  type MetricsEvent,
  type PackageSource,
  type RunContextMetrics,
} from './context/run-metrics.js';
export { countWith, defaultTokenizer, estimateTokens, type TokenizerName } from './context/tokenizer.js';
