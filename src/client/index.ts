/**
 * `agent-harness/client`: start runs, read their state and events, send decisions. Needs only a
 * Temporal connection: no worker composition, no model credentials.
 */
export * from '../contract/index.js';
export * from '../codec/index.js';
export { startAgentRun, type StartRunOptions } from './start-run.js';
export { createHarnessClient, type HarnessClientOptions } from './harness-client.js';
export { getRunView, waitForStatus, type RunHandle, type WaitForStatusOptions } from './run-status.js';
export { projectPublic } from './evidence/public-projection.js';
export {
  buildFailureSample,
  FailureSampleSchema,
  patchIdsOf,
  recordedEndOf,
  type BuildFailureSampleInput,
  type FailureSample,
  type SampleInvocation,
} from './failures/failure-sample.js';
export {
  FailureSampleFolderError,
  isFailureSampleFolder,
  readFailureSampleFolder,
  writeFailureSampleFolder,
} from './failures/failure-sample-folder.js';
export { historyFacts, sumHistoryFacts, type HistoryFacts } from './metrics/history-facts.js';
export {
  distribution,
  formatMetric,
  notComputable,
  percentile,
  ratio,
  type Distribution,
  type MetricValue,
} from './metrics/metric-value.js';
export {
  computeEvidenceMetrics,
  type EvidenceMetrics,
  type EvidenceMetricsContext,
  type RunEvidence,
} from './metrics/run-evidence-metrics.js';
export {
  evidenceMetricValues,
  formatSeedMetric,
  renderSeedMetricsTable,
  SEED_METRICS,
  seedMetricRows,
  type SeedMetricGroup,
  type SeedMetricId,
  type SeedMetricRow,
  type SeedMetricUnit,
  type SeedMetricValues,
} from './metrics/seed-metrics.js';
export { resolveTemporal, type TemporalTarget } from '../devserver/temporal-target.js';
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
export type { RunView } from '../contract/run-view.js';
export type { AgentRunResult, AgentRunWorkflow } from '../workflows/index.js';
export {
  decisionKeyFrom,
  generateDecisionKey,
  loadDecisionKey,
  publicKeyOf,
  type DecisionKey,
  type DecisionKeyFile,
  type GeneratedDecisionKey,
} from './decisions/decision-key.js';
export { signDecision, DEFAULT_TOKEN_TTL_SECONDS, type DecisionTarget } from './decisions/sign-decision.js';
export { sendDecision, signedPayload, type PendingTarget } from './decisions/send-decision.js';
export { signStart, DEFAULT_START_TOKEN_TTL_SECONDS, type StartSigner } from './decisions/sign-start.js';
