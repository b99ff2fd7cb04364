import type { HumanRequest } from '../../contract/pending-action.js';
import type { ConfirmRequest } from './run-context.js';
import { versionedName } from '../../contract/versioned-name.js';

/**
 * What a person deciding on action `actionId` is shown: the profile's or pipeline's `request`, with
 * the decisions they may send (a customer confirms or rejects; an approver approves or rejects, and
 * with `moreInfo` may ask the requester a question: `request_more_info`). Never throws.
 */
export function decisionRequest(
  runId: string,
  actionId: string,
  request: ConfirmRequest,
  expiresAt: string,
  customer: boolean,
  moreInfo = false,
): HumanRequest {
  return {
    runId,
    decisionType: request.decisionType,
    requestSummary: request.summary,
    verifiedFacts: request.verifiedFacts ?? [],
    policyEvidence: request.policyEvidence ?? [],
    proposedAction: `action://${runId}/${actionId}`,
    riskReasons: request.riskReasons ?? [],
    allowedDecisions: customer
      ? ['confirm', 'reject']
      : moreInfo
        ? ['approve', 'reject', 'request_more_info']
        : ['approve', 'reject'],
    expiresAt,
  };
}

/**
 * A question about an approved write that provably did not take effect, and why it goes to a person:
 * its automatic attempts ran out (`write_attempts_exhausted`), or it was settled not applied and its
 * tool is not idempotent by the key (`write_not_idempotent`). `why` is the waiting reason.
 */
export interface NoEffectQuestion {
  readonly why: 'write_attempts_exhausted' | 'write_not_idempotent';
  readonly attempts: number;
  readonly lastReason: string;
}

/** The summary a person reads about a write that did not take effect. */
function noEffectSummary(name: string, q: NoEffectQuestion): string {
  if (q.why === 'write_not_idempotent')
    return `${name} was approved; attempt ${q.attempts} was settled as not applied (${q.lastReason}), and the tool does not declare that a repeat under the same idempotency key is safe; check the external system, then send a reconcile signal: not_applied to run it again under the same key, failed to give it up, succeeded if it was done`;
  // The exhausted question's text, exactly as runs recorded it.
  return `${name} was approved but did not take effect in ${q.attempts} attempts (last: ${q.lastReason}); send a reconcile signal: not_applied to try again, failed to give it up, succeeded if it was done outside the run`;
}

/**
 * What a person settling write `seq` is shown: a write whose outcome is unknown, or (`noEffect`) one
 * approved but provably without effect. `reason` is the request's decision type. Never throws.
 */
export function reconcileRequest(
  runId: string,
  seq: number,
  tool: string,
  version: string,
  reason: string,
  noEffect: NoEffectQuestion | undefined,
  expiresAt: string | null = null,
): HumanRequest {
  const name = `${versionedName(tool, version)} #${seq}`;
  return {
    runId,
    decisionType: reason,
    requestSummary: noEffect
      ? noEffectSummary(name, noEffect)
      : `${name} may or may not have taken effect; check the external system and send a reconcile signal`,
    verifiedFacts: [],
    policyEvidence: [],
    proposedAction: `invocation://${runId}/${seq}`,
    riskReasons: [noEffect ? noEffect.why : 'write_outcome_unknown'],
    allowedDecisions: ['succeeded', 'failed', 'not_applied'],
    expiresAt: expiresAt ?? '',
  };
}

/**
 * What a person asked for the value of `slot` is shown: the profile's `prompt`, and when it expires
 * (`''`: never, for runs before `agent-run-human-request-expiry-v1`). Never throws.
 */
export function inputRequest(
  runId: string,
  slot: string,
  prompt: string,
  expiresAt: string | null = null,
): HumanRequest {
  return {
    runId,
    decisionType: 'input_required',
    requestSummary: prompt,
    verifiedFacts: [],
    policyEvidence: [],
    proposedAction: `slot://${runId}/${slot}`,
    riskReasons: [],
    allowedDecisions: ['provideInput'],
    expiresAt: expiresAt ?? '',
  };
}

/**
 * What the requester is shown when an approver asks about action `actionId` (`request_more_info`): the
 * question, who asked, and that the answer goes back to the approver (it decides nothing). Expires
 * with the decision. Never throws.
 */
export function moreInfoRequest(
  runId: string,
  actionId: string,
  slot: string,
  asked: { readonly question: string; readonly actor: string },
  expiresAt: string | null,
): HumanRequest {
  return {
    runId,
    decisionType: 'more_info_requested',
    requestSummary: `${asked.actor} asks before deciding on action://${runId}/${actionId}: ${asked.question}`,
    verifiedFacts: [],
    policyEvidence: [],
    proposedAction: `slot://${runId}/${slot}`,
    riskReasons: [],
    allowedDecisions: ['provideInput'],
    expiresAt: expiresAt ?? '',
  };
}
