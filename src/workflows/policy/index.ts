/** Workflow-safe entry point of the policy engine: pure, synchronous, no Node builtins, no clock. */
export type {
  ContextPolicy,
  Policy,
  PolicyFacts,
  PolicyRequest,
  PolicyStage,
  PolicySubject,
} from './policy.js';
export { policyVersionOf } from './policy.js';
export { PolicyError } from './policy-error.js';
export type { ReasonCode } from './reason-codes.js';
export {
  CUSTOM_REASON_CODE_PATTERN,
  OBLIGATION_PATTERN,
  ReasonCodes,
  isCatalogueReasonCode,
  isValidObligation,
  isValidReasonCode,
} from './reason-codes.js';
export { DECISION_STRICTNESS, mergeDecisions, strictness } from './decision-merge.js';
export { addSeconds, isDecisionExpired, parseIsoTime } from './decision-time.js';
export { decodeDecision, encodeDecision, parseDecision } from './decision-codec.js';
export { AllowAllPolicy } from './allow-all-policy.js';
export type { RestrictionConfig } from './restriction-policy.js';
export { RestrictionPolicy } from './restriction-policy.js';
export type { RulesExplanation } from './rules-policy.js';
export { RulesPolicy } from './rules-policy.js';
export type { ArgPredicate, FactPredicate, Rule, RuleCondition, RulesPolicyConfig } from './rules-schema.js';
export { RulesPolicyConfigSchema } from './rules-schema.js';
export { composePolicies } from './compose-policies.js';
export type { ExcludedTool, ToolPresentation } from './present-tools.js';
export { authorizeDispatch, presentTools, recheckDecision } from './present-tools.js';
