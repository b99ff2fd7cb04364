import type { HumanRequest, PendingAction } from '../../contract/pending-action.js';
import type { Mailbox } from './decision-intake.js';
import type { GateParts } from './gate-parts.js';
import { moreInfoRequest } from './human-requests.js';
import type { WaitOptions } from './run-context.js';

/** An approver's question (`requestMoreInfo`), as the intake accepted it. */
export type MoreInfoAsked = Extract<Mailbox, { kind: 'more_info' }>;

/** The requester's answer to an approver's question. */
export interface MoreInfoAnswer {
  readonly question: string;
  readonly askedBy: string;
  readonly answer: string;
  readonly answeredBy: string;
}

/**
 * An approver asked a question about `decided` instead of deciding (`agent-run-request-more-info-v1`).
 * Records `human.more_info_requested`, then waits in `awaiting_input` (waiting reason
 * `more_info_requested`) for the requester's answer on slot `more_info:<actionId>` through the
 * ordinary `provideInput` path (signed and authorized as an input). The input request expires with the
 * decision it belongs to: the question never extends the decision's expiry. On an answer records
 * `human.more_info_answered` and resolves with it; the caller then asks for the decision again (the
 * answer grants nothing). Resolves undefined when the decision's expiry passed first (the caller
 * records the decision as expired).
 * @throws RunStop(cancelled), ContinueAsNewRequested or RunStop(failed, `run.history_limit`) as
 *   `HumanWait.wait` does; a next generation asks for the decision again from the start.
 */
export async function askRequester(
  deps: GateParts,
  decided: PendingAction,
  asked: MoreInfoAsked,
  options: WaitOptions,
): Promise<MoreInfoAnswer | undefined> {
  const { core, humanWait, intake, authority } = deps;
  const slot = `more_info:${decided.actionId}`;
  core.emit('human.more_info_requested', {
    actionId: decided.actionId,
    question: asked.question,
    actor: asked.actor,
    slot,
  });
  const actionId = authority ? authority.nextActionId('i', slot) : `input-${slot}`;
  if (authority) intake.waiting = { action: { actionId }, customer: false, dispatch: false };
  const action: PendingAction = { actionId, kind: 'input', slot, expiresAt: decided.expiresAt };
  const request = moreInfoRequest(core.state.runId, decided.actionId, slot, asked, decided.expiresAt);
  const received = await humanWait.wait(action, 'awaiting_input', 'more_info_requested', request, options);
  if (received?.kind !== 'input') {
    core.emit('human.more_info_expired', { actionId: decided.actionId, inputActionId: actionId, slot });
    return undefined;
  }
  core.emit('human.more_info_answered', {
    actionId: decided.actionId,
    inputActionId: actionId,
    slot,
    actor: received.actor,
    answer: received.value,
  });
  return {
    question: asked.question,
    askedBy: asked.actor,
    answer: received.value,
    answeredBy: received.actor,
  };
}

/**
 * The decision request shown again after an answer: `original` (the request first shown: same action
 * and expiry) with the latest question and answer (the answer cut at 2,000 characters; every exchange
 * is in the events) added to the summary and `answered_more_info` to the risk reasons. Never throws.
 */
export function withAnswer(original: HumanRequest, a: MoreInfoAnswer): HumanRequest {
  return {
    ...original,
    requestSummary: `${original.requestSummary}\n[${a.askedBy} asked] ${a.question}\n[${a.answeredBy} answered] ${a.answer.slice(0, 2_000)}`,
    riskReasons: [...original.riskReasons, 'answered_more_info'],
  };
}
