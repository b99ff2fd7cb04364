import type { HumanRequest } from '../../contract/pending-action.js';
import type { ConfirmRequest } from './run-context.js';
import { versionedName } from '../../contract/versioned-name.js';

/**
 * What a person deciding on action `actionId` is shown: the profile's or pipeline's `request`, with
 * the decisions they may send (a customer confirms or rejects; an approver approves or rejects).
 * Never throws.
 */
export function decisionRequest(
  runId: string,
  actionId: string,
  request: ConfirmRequest,
  expiresAt: string,
  customer: boolean,
): HumanRequest {
  return {
    runId,
    decisionType: request.decisionType,
    requestSummary: request.summary,
    verifiedFacts: request.verifiedFacts ?? [],
    policyEvidence: request.policyEvidence ?? [],
    proposedAction: `action://${runId}/${actionId}`,
    riskReasons: request.riskReasons ?? [],
    allowedDecisions: customer ? ['confirm', 'reject'] : ['approve', 'reject'],
    expiresAt,
  };
}

/**
 * What a person settling write `seq` is shown: a write whose outcome is unknown, or (`exhausted`) one
 * approved but without effect after its automatic attempts. `reason` is the request's decision type.
 * Never throws.
 */
export function reconcileRequest(
  runId: string,
  seq: number,
  tool: string,
  version: string,
  reason: string,
  exhausted: { readonly attempts: number; readonly lastReason: string } | undefined,
): HumanRequest {
  return {
    runId,
    decisionType: reason,
    requestSummary: exhausted
      ? `${versionedName(tool, version)} #${seq} was approved but did not take effect in ${exhausted.attempts} attempts (last: ${exhausted.lastReason}); send a reconcile signal: not_applied to try again, failed to give it up, succeeded if it was done outside the run`
      : `${versionedName(tool, version)} #${seq} may or may not have taken effect; check the external system and send a reconcile signal`,
    verifiedFacts: [],
    policyEvidence: [],
    proposedAction: `invocation://${runId}/${seq}`,
    riskReasons: [exhausted ? 'write_attempts_exhausted' : 'write_outcome_unknown'],
    allowedDecisions: ['succeeded', 'failed', 'not_applied'],
    expiresAt: '',
  };
}

/** What a person asked for the value of `slot` is shown: the profile's `prompt`. Never throws. */
export function inputRequest(runId: string, slot: string, prompt: string): HumanRequest {
  return {
    runId,
    decisionType: 'input_required',
    requestSummary: prompt,
    verifiedFacts: [],
    policyEvidence: [],
    proposedAction: `slot://${runId}/${slot}`,
    riskReasons: [],
    allowedDecisions: ['provideInput'],
    expiresAt: '',
  };
}
