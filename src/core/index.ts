/**
 * `agent-harness/workflow`: the workflow-safe entry point. Everything here runs inside the Temporal
 * workflow sandbox (deterministic, no Node builtins, no I/O): `defineAgentRun`, profiles, policies,
 * completion evaluators, guardrails, the sandbox-safe tool checks and the shared contract. An app's
 * workflows file imports only from here:
 *
 * ```ts
 * import { defineAgentRun } from 'agent-harness/workflow';
 * export const agentRun = defineAgentRun({ profiles: [...], policies: [...] });
 * ```
 */
// First: zod runs jitless in the sandbox before any module-level schema is parsed.
import './workflow/sandbox-zod.js';

export {
  defineAgentRun,
  stateQuery,
  approveSignal,
  rejectSignal,
  reconcileSignal,
  provideInputSignal,
  cancelRunSignal,
  type AgentRunResult,
  type AgentRunWorkflow,
} from './workflow/agent-run.js';
export {
  combineDefinitions,
  composeAgentRun,
  type AgentRunComposition,
  type AgentRunDefinition,
} from './workflow/agent-run-definition.js';
export type { RunView } from './workflow/run-view.js';

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
export { DEFAULT_NODE_RETRY, type NodeRetryPolicy } from './runner/graph-node-retry.js';
export type { GraphStateSchema, StatePatchIssue } from './runner/graph-state-patch.js';
export type {
  BlockedOutputChoice,
  BlockedOutputFeedback,
  Profile,
  ProfilePolicies,
  ProfileResult,
} from './runner/profile.js';
export { allowedPolicies } from './runner/profile.js';
export type {
  RunContext,
  ConfirmRequest,
  HumanDecision,
  ModelRequest,
  ToolOptions,
} from './runner/run-context.js';
export {
  budgetLimitsObject,
  BudgetLimitsSchema,
  DEFAULT_LIMITS,
  type BudgetLimits,
} from './runner/budget.js';
export {
  isTerminal,
  RunStatusSchema,
  TERMINAL_STATUSES,
  TRANSITIONS,
  WAITING_STATUSES,
  type RunStatus,
} from './runner/statuses.js';
export type { AgentEvent, DataClassification } from './runner/agent-event.js';

export * from './policy/index.js';
export { normalizeRelativePath } from './policy/relative-path.js';
export * from './completion/index.js';
export {
  createInputGuardrail,
  createOutputGuardrail,
  DEFAULT_CLAIM_KINDS,
  type ClaimKind,
  type InputGuardrailConfig,
  type OutputGuardrailConfig,
} from './guardrails/index.js';
export * from './tools/sandbox.js';
export { NamedRegistry } from './tools/named-registry.js';
export * from '../contract/index.js';
export { builtOnFirstUse } from '../contract/built-on-first-use.js';
export {
  AuthorizationRulesSchema,
  DEFAULT_AUTHORIZATION,
  type ApprovalRule,
  type AuthorizationRules,
  type AuthorizationRulesInput,
} from './authz/authorization-rules.js';
export {
  DECISION_TOKEN_TYPE,
  decisionPayloadDigest,
  type DecisionClaims,
  type TokenDecision,
} from './authz/decision-token.js';
export type { AuthzCarried, DecisionRecord } from './authz/decision-authority.js';
