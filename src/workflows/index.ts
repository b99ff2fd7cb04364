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
import './temporal/sandbox-zod.js';

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
} from './temporal/agent-run.js';
export {
  combineDefinitions,
  composeAgentRun,
  type AgentRunComposition,
  type AgentRunDefinition,
} from './temporal/agent-run-definition.js';
export type { RunView } from '../contract/run-view.js';

export { createGoalProfile, type GoalProfileConfig } from './runner/goal-profile.js';
export type { ActionDescriber, DescribedAction } from './runner/action-summary.js';
export {
  createGraphProfile,
  NODE_DEADLINE_CODE,
  OUTPUT_FEEDBACK_KEY,
  reachableNodes,
  validateGraph,
  type GraphDefinition,
  type GraphEdge,
  type GraphNode,
  type NodeContext,
  type NodeResult,
  type RouteDecision,
} from './runner/graph-profile.js';
export { DEFAULT_NODE_RETRY, type NodeRetryPolicy } from './runner/graph-node-retry.js';
export type { GraphStateSchema, StatePatchIssue } from './runner/graph-state-patch.js';
export type {
  BlockedOutputChoice,
  BlockedOutputFeedback,
  DeliveredAnswer,
  DeliveredOutcome,
  DeliveredWrite,
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
} from '../contract/statuses.js';
export type { AgentEvent, DataClassification } from '../contract/agent-event.js';

export * from './policy/index.js';
export * from './routing/index.js';
export * from './planning/index.js';
export * from './routed/index.js';
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
// Guardrail checks the activity side and the client run outside the sandbox too (same code, same answers).
export { checkInput } from './guardrails/input-guardrail.js';
export { detectSecrets } from './guardrails/detect-secrets.js';
export { maskSecrets } from './guardrails/data-taint.js';
export { taintDigestsOf } from './guardrails/data-taint.js';
export * from '../registry/sandbox.js';
export { NamedRegistry } from '../registry/named-registry.js';
export * from '../contract/index.js';
export { builtOnFirstUse } from '../contract/built-on-first-use.js';
export {
  AuthorizationRulesSchema,
  DEFAULT_AUTHORIZATION,
  type ApprovalRule,
  type AuthorizationRules,
  type AuthorizationRulesInput,
  approvalRuleFor,
} from './authz/authorization-rules.js';
export {
  DECISION_TOKEN_TYPE,
  checkDecisionToken,
  decisionPayloadDigest,
  type DecisionClaims,
  type TokenDecision,
} from './authz/decision-token.js';
/** The registry lookup a decision token is checked against (the offline verifier checks tokens again). */
export { PrincipalDirectory } from './authz/principal-directory.js';
export { START_TOKEN_TYPE, startInputDigest, type StartClaims } from './authz/start-token.js';
export type { AuthzCarried, DecisionRecord } from './authz/decision-authority.js';
