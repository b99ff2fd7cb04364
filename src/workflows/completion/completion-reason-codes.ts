/**
 * Stable reason codes of completion verdicts. Written to durable run results; never renamed.
 */
export const CompletionReasonCodes = {
  /** `solution_delivered`: the final output is non-empty. */
  outputDelivered: 'completion.output_delivered',
  /** The final output is absent, null, blank, or an empty array/object. */
  noFinalOutput: 'completion.no_final_output',
  /** An observed action has a passed, linked, later verification. */
  actionVerified: 'completion.action_verified',
  /** The action is a write a person settled as succeeded, and an independent later check verified its external id. */
  operatorAttestedAction: 'completion.operator_attested_action',
  /** No trusted observed artifact of the required action (model summaries never count). */
  noObservedAction: 'completion.no_observed_action',
  /** No trusted verified artifact at all. */
  noVerifiedArtifact: 'completion.no_verified_artifact',
  /** Verified artifacts exist, but none links to the required observed artifact by artifact id or external id, from a later invocation. */
  unlinkedVerification: 'completion.unlinked_verification',
  /** The latest linked verification has status `failed`. */
  verificationFailed: 'completion.verification_failed',
  /** `observed_remote_branch`: the latest observation of the branch is verified. */
  remoteBranchVerified: 'completion.remote_branch_verified',
  /** No trusted observed `git.remote_branch` artifact. */
  noRemoteBranch: 'completion.no_remote_branch',
  /** Remote branches were observed, but none with the required remote/branch. */
  branchMismatch: 'completion.branch_mismatch',
  /** A trusted artifact's data does not have the shape its type requires. */
  invalidArtifactData: 'completion.invalid_artifact_data',
  /** `pipeline_verification`: the deciding pipeline run passed. */
  pipelinePassed: 'completion.pipeline_passed',
  /** No trusted verified pipeline run artifact. */
  noPipelineVerification: 'completion.no_pipeline_verification',
  /** Observed/verified artifacts were ignored: not recorded by a succeeded invocation, or malformed. */
  unattributedArtifactIgnored: 'completion.unattributed_artifact_ignored',
  /** The contract params do not fit the evaluator. */
  paramsInvalid: 'completion.params_invalid',
  /** A custom evaluator threw or returned a malformed verdict. */
  evaluatorError: 'completion.evaluator_error',
} as const;

export type CompletionReasonCode = (typeof CompletionReasonCodes)[keyof typeof CompletionReasonCodes];
