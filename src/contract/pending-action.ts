/**
 * The human request of seed 004, shown in the `state` query and the current details while the run
 * waits.
 */
export interface HumanRequest {
  readonly runId: string;
  readonly decisionType: string;
  readonly requestSummary: string;
  readonly verifiedFacts: readonly string[];
  readonly policyEvidence: readonly string[];
  /** `action://<runId>/<actionId>` */
  readonly proposedAction: string;
  readonly riskReasons: readonly string[];
  readonly allowedDecisions: readonly string[];
  readonly expiresAt: string;
}

/**
 * What a run is waiting for. A decision signal must name this exact action: approvals are bound to
 * the tool, version and argument digest, and expire.
 */
export interface PendingAction {
  readonly actionId: string;
  readonly kind: 'confirmation' | 'human' | 'reconcile' | 'input';
  readonly tool?: string;
  readonly version?: string;
  readonly argsDigest?: string;
  /** Invocation awaiting reconciliation (kind `reconcile`). */
  readonly invocationSeq?: number;
  /** Slot awaiting input (kind `input`). */
  readonly slot?: string;
  readonly obligations?: readonly string[];
  readonly expiresAt: string | null;
}
