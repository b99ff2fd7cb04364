/** Workflow-safe entry point of completion evaluation: pure, synchronous, no Node builtins, no clock. */
export type {
  CompletionContract,
  CompletionEvaluator,
  CompletionInput,
  CompletionVerdict,
  InvocationRecord,
} from './completion.js';
export { CompletionContractSchema, evaluatorId } from './completion.js';
export { CompletionError } from './completion-error.js';
export type { CompletionReasonCode } from './completion-reason-codes.js';
export { CompletionReasonCodes } from './completion-reason-codes.js';
export type { VerdictBody } from './define-evaluator.js';
export { defineEvaluator, evaluatorFromFunction } from './define-evaluator.js';
export { solutionDelivered } from './solution-delivered.js';
export { ActionWithVerificationParamsSchema, actionWithVerification } from './action-with-verification.js';
export {
  ObservedRemoteBranchParamsSchema,
  REMOTE_BRANCH_ARTIFACT_TYPE,
  RemoteBranchDataSchema,
  observedRemoteBranch,
} from './observed-remote-branch.js';
export {
  PIPELINE_ARTIFACT_TYPE,
  PipelineVerificationParamsSchema,
  pipelineVerification,
} from './pipeline-verification.js';
export {
  DEFAULT_EVALUATORS,
  EvaluatorRegistry,
  createDefaultEvaluatorRegistry,
} from './evaluator-registry.js';
