/**
 * The contract every side shares (workflow, worker, client): run input, signal names and payload
 * schemas, tool and artifact shapes, policy decisions, errors. Sandbox-safe: no Node builtins, no I/O.
 */
export * from './errors.js';
export type {
  ToolDefinition,
  ToolExecutor,
  ToolCall,
  ToolContext,
  ToolExecution,
  ToolEffect,
  ReconcileOutcome,
  JsonSchema,
  FastRead,
} from './tool.js';
export { MAX_FAST_TIMEOUT_MS } from './tool.js';
export { ArtifactSchema, type Artifact, type ArtifactProvenance } from './artifact.js';
export { ObservationSchema, type Observation } from './observation.js';
export { PolicyDecisionSchema, type DecisionRules, type PolicyDecision } from './policy-decision.js';
export { AgentRunInputSchema, describeInputIssues, type AgentRunInput } from './run-input.js';
export * from './signals.js';
export {
  AgentProfileKey,
  AgentStatusKey,
  AgentTenantKey,
  AgentUserKey,
  AgentWaitingReasonKey,
  QUERY_NAMES,
} from './visibility.js';
export {
  PRINCIPAL_KINDS,
  PrincipalRegistrySchema,
  type Principal,
  type PrincipalKey,
  type PrincipalKind,
  type PrincipalRegistry,
} from './principals.js';
export {
  FALLBACK_TRIGGERS,
  ModelRoutePlanSchema,
  type FallbackTrigger,
  type ModelRoutePlan,
  type PinnedModelRoute,
} from './model-routes.js';
export {
  BUNDLE_ERROR_CODES,
  BundlePinSchema,
  ResolvedBundlesSchema,
  ROLLOUT_ARMS,
  type BundlePin,
  type BundleRef,
  type ResolvedBundles,
  type RolloutArm,
} from './bundles.js';
export type {
  RunBudgetLimits,
  RunBudgetUsage,
  RunDecisionRecord,
  RunFacts,
  RunSignalRejection,
  RunTerminalReason,
  RunDeliveredWrite,
  RunView,
  RunViewArtifact,
  RunViewInvocation,
} from './run-view.js';
export type { HumanRequest, PendingAction } from './pending-action.js';
export type { RunStatus } from './statuses.js';
export type { RunVersions } from './agent-event.js';
export { versionedName } from './versioned-name.js';
