/**
 * `agent-harness/worker`: the worker side. Tools with executors (the tool registry), the evidence
 * store, the model gateway and providers, the context builder, the MCP adapter, tracing, and
 * `createHarnessWorker`, which runs an app's workflows module with the harness activities. Node only;
 * workflow code imports `agent-harness/workflow` instead.
 */
export * from '../contract/index.js';
export * from '../registry/index.js';
export { DIGEST_PREFIX, sha256Digest } from '../activities/digest.js';
export * from '../activities/mcp/index.js';
export {
  loadHarnessApp,
  type AppCompositionOptions,
  type FailureCase,
  type HarnessApp,
  type WorkerComposition,
} from './app.js';
export * from '../codec/index.js';
export { createHarnessWorker, harnessActivities, type HarnessWorkerOptions } from './harness-worker.js';
export {
  checkSearchAttributes,
  ensureSearchAttributes,
  HARNESS_SEARCH_ATTRIBUTES,
  searchAttributeCommands,
  type EnsureSearchAttributesOptions,
  type OperatorConnection,
  type SearchAttributeCheck,
  type SearchAttributeConflict,
  type SearchAttributesMode,
  type SearchAttributeTypeName,
  type WantedSearchAttribute,
} from '../devserver/search-attributes.js';
export { composeWorker, type ComposeWorkerOptions, type ModelRouteSpec } from './compose-worker.js';
export type { ErasableFields } from '../contract/erasable-rule.js';
export { composeAppWorker, type AppWorkerParts } from './compose-app-worker.js';
export {
  loadPrincipalRegistry,
  principalsFrom,
  resolvePrincipals,
  NO_PRINCIPALS,
  type LoadedPrincipals,
} from '../activities/authz/principal-registry.js';
export { bundleWorkflows, type BundleOptions } from './bundle.js';
export { installWorkerRuntime } from './runtime.js';
export { harnessSettings, redactUrl, type HarnessSettings } from './settings.js';
export { ModelRouter } from '../activities/model-router.js';
export { createTracing, tracingFromEnv, type HarnessTracing } from '../telemetry/tracing.js';
export { otelTraceIdForRun } from '../contract/run-trace.js';
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
} from '../activities/store/index.js';
export type { ModelProvider, ModelOutput, ModelMessage, ModelToolSpec } from '../activities/model/types.js';
export { providerFromEnv } from '../activities/model/provider-from-env.js';
export { loadModelRoutes, ModelRoutes } from '../activities/model/model-routes.js';
export { BundleCatalog, loadBundleCatalog, type LoadedBundle } from '../activities/bundles/bundle-catalog.js';
export { BundleError } from '../activities/bundles/bundle-error.js';
export { assignArm, rolloutBucket } from '../activities/bundles/rollout-arm.js';
export {
  resolveRolloutSecret,
  ROLLOUT_SECRET_ENV,
  ROLLOUT_SECRET_FILE_ENV,
  type RolloutSecret,
} from '../activities/bundles/rollout-secret.js';
export { parseModelRoutes, type ModelRoutesFile } from '../activities/model/routes-file.js';
export { ScriptedProvider } from '../activities/model/scripted-provider.js';
export { parseModelScript, type ModelScript, type ScriptEntry } from '../activities/model/scripted-script.js';
export { ModelError } from '../activities/model/errors.js';
export { buildContext } from '../activities/context/build-context.js';
export { renderContext } from '../activities/context/render.js';
export { planRequest } from '../activities/context/plan-request.js';
export {
  renderRequest,
  requestTokens,
  type RequestBudget,
  type RequestPackageInput,
  type RequestPackagePlan,
  type TranscriptGroup,
} from '../activities/context/request-package.js';
export {
  contextMetricsOfRun,
  loadRunPackages,
  stepsOfEvents,
  type ContextLabels,
  type MetricsEvent,
  type PackageSource,
  type RunContextMetrics,
} from '../activities/context/run-metrics.js';
export {
  countWith,
  defaultTokenizer,
  estimateTokens,
  type TokenizerName,
} from '../activities/context/tokenizer.js';
