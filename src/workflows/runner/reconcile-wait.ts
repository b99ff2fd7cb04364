import type { HumanRequest, PendingAction } from '../../contract/pending-action.js';
import type { ReconcileSignal } from '../../contract/signals.js';
import { requestExpiry, type GateParts } from './gate-parts.js';
import { reconcileRequest, type NoEffectQuestion } from './human-requests.js';

/**
 * Wait for a `reconcile` signal about invocation `seq`: a write whose outcome is unknown (waiting
 * reason `unknown_write_outcome`), or one that provably did not take effect and is not tried again
 * without a person (`noEffect.why`: `write_attempts_exhausted`, `write_not_idempotent`). The request
 * expires (`agent-run-human-request-expiry-v1`) after the run's request timeout; an unresolved write is
 * never dropped, so expiry escalates: `human.request_expired` and `human.escalated` (`reason:
 * request_expired`) are recorded, the request says it is overdue (`riskReasons` gains
 * `request_expired`), the waiting reason becomes `<reason>_overdue`, and the wait goes on for the
 * same action, without a further expiry.
 * @throws RunStop(cancelled) when the run is cancelled while waiting; Error when a wait ends without a
 *   signal (never expected).
 */
export async function awaitReconciliation(
  g: GateParts,
  seq: number,
  tool: string,
  version: string,
  noEffect: NoEffectQuestion | undefined,
): Promise<ReconcileSignal> {
  const actionId = g.authority ? g.authority.nextActionId('r', tool, String(seq)) : `reconcile-${seq}`;
  const waiting = g.authority
    ? { action: { actionId, tool, version }, customer: false, dispatch: false }
    : undefined;
  g.intake.waiting = waiting;
  const expiresAt = requestExpiry(g);
  const action: PendingAction = { actionId, kind: 'reconcile', invocationSeq: seq, tool, version, expiresAt };
  const reason = noEffect ? noEffect.why : 'unknown_write_outcome';
  const { runId } = g.core.state;
  const request = reconcileRequest(runId, seq, tool, version, reason, noEffect, expiresAt);
  let received = await g.humanWait.wait(action, 'awaiting_human', reason, request);
  if (received === undefined && expiresAt !== null) {
    const escalated = escalation(g, action, request, expiresAt);
    g.intake.waiting = waiting;
    received = await g.humanWait.wait(
      escalated.action,
      'awaiting_human',
      `${reason}_overdue`,
      escalated.request,
    );
  }
  if (received?.kind !== 'reconcile') throw new Error('reconciliation wait ended without a signal');
  g.core.emit('human.decided', { actionId, ...received.signal });
  return received.signal;
}

/** The expired reconcile request, recorded and escalated: the same action, overdue, without expiry. */
function escalation(
  g: GateParts,
  action: PendingAction,
  request: HumanRequest,
  expiresAt: string,
): { action: PendingAction; request: HumanRequest } {
  g.core.emit('human.request_expired', {
    actionId: action.actionId,
    kind: 'reconcile',
    invocationSeq: action.invocationSeq ?? null,
    expiresAt,
    outcome: 'escalated',
  });
  g.core.emit('human.escalated', {
    actionId: action.actionId,
    invocationSeq: action.invocationSeq ?? null,
    tool: action.tool ?? null,
    reason: 'request_expired',
    expiresAt,
  });
  return {
    action: { ...action, expiresAt: null },
    request: {
      ...request,
      requestSummary: `OVERDUE: this request expired at ${expiresAt} while the write was unresolved. ${request.requestSummary}`,
      riskReasons: [...request.riskReasons, 'request_expired'],
      expiresAt: '',
    },
  };
}
