/**
 * agent-harness: the package root, for Node code (workers, clients, tools). It is the worker entry
 * (`agent-harness/worker`) plus the client entry (`agent-harness/client`) and the workflow-safe
 * building blocks (profiles, policies, evaluators) an app composes. An app's workflows file imports
 * `agent-harness/workflow` only. See docs/extending.md.
 */
export * from './worker/index.js';
export * from './client/index.js';
export * from './workflows/index.js';
// Replays need the worker SDK, so they are not part of the client entry.
export {
  failureReplayer,
  reproduceFailure,
  type ExpectedFailure,
  type FailureReproduction,
  type ReproduceFailureInput,
} from './client/failures/reproduce-failure.js';
// Reading request packages needs the tokenizers (several MB): the client entry stays without them.
export {
  collectRunEvidence,
  generationHistories,
  type CollectRunEvidenceOptions,
  type FailureReplayer,
} from './client/metrics/collect-run-evidence.js';
export { contextMetricValues, PRECISION_NEEDS_LABELS } from './client/metrics/context-metric-values.js';
export {
  buildMetricsReport,
  renderMetricsMarkdown,
  rolloutArmOf,
  type MetricsReport,
} from './client/metrics/metrics-report.js';
