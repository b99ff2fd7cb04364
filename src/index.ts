/**
 * agent-harness: the package entry point. Trusted composition (tools, policies, profiles,
 * evaluators), the client and worker helpers, the evidence store, model providers, MCP and
 * guardrails. Workflow code imports the sandbox-safe modules directly (see docs/extending.md).
 */
export * from './domain/errors.js';
export type {
  ToolDefinition,
  ToolExecutor,
  ToolCall,
  ToolContext,
  ToolExecution,
  ToolEffect,
  ReconcileOutcome,
  JsonSchema,
} from './domain/tool.js';
export { ArtifactSchema, type Artifact, type ArtifactProvenance } from './domain/artifact.js';
export { ObservationSchema, type Observation } from './domain/observation.js';
export { PolicyDecisionSchema, type PolicyDecision } from './domain/policy-decision.js';
export { AgentRunInputSchema, type AgentRunInput } from './domain/run-input.js';
export * from './domain/signals.js';

export * from './registry/index.js';
export { NamedRegistry } from './registry/named-registry.js';
export * from './policy/index.js';
export * from './completion/index.js';
export * from './mcp/index.js';

export { createGoalProfile, type GoalProfileConfig } from './runner/goal-profile.js';
export {
  createGraphProfile,
  OUTPUT_FEEDBACK_KEY,
  reachableNodes,
  validateGraph,
  type GraphDefinition,
  type GraphEdge,
  type GraphNode,
  type NodeResult,
  type RouteDecision,
} from './runner/graph-profile.js';
export type {
  BlockedOutputChoice,
  BlockedOutputFeedback,
  Profile,
  ProfileResult,
} from './runner/profile.js';
export type {
  RunContext,
  ConfirmRequest,
  HumanDecision,
  ModelRequest,
  ToolOptions,
} from './runner/run-context.js';
export { BudgetLimitsSchema, DEFAULT_LIMITS, type BudgetLimits } from './runner/budget.js';
export { RunStatusSchema, TRANSITIONS, type RunStatus } from './runner/statuses.js';
export type { AgentEvent, DataClassification } from './runner/agent-event.js';
export type { RunView } from './workflows/run-view.js';
export type { AgentRunResult } from './workflows/agent-run.js';

export { startAgentRun, type StartRunOptions } from './client/start-run.js';
export { createHarnessClient, type HarnessClientOptions } from './client/harness-client.js';
export { createTracing, tracingFromEnv, type HarnessTracing } from './telemetry/tracing.js';
export { otelTraceIdForRun } from './telemetry/run-trace.js';
export {
  createHarnessComposition,
  type HarnessComposition,
  type HarnessCompositionOptions,
} from './composition/harness-composition.js';
export {
  createHarnessWorker,
  harnessActivities,
  type HarnessWorkerOptions,
} from './worker/harness-worker.js';
export { ModelRouter } from './activities/model-router.js';
export { resolveTemporal, type TemporalTarget } from './devserver/temporal-target.js';

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
export { ScriptedProvider } from './model/scripted-provider.js';
export { parseModelScript, type ModelScript } from './model/scripted-script.js';
export { ModelError } from './model/errors.js';
export { buildContext } from './context/build-context.js';
export { renderContext } from './context/render.js';
export { createInputGuardrail, createOutputGuardrail } from './guardrails/index.js';
export { projectPublic } from './evidence/public-projection.js';
