import type { DecisionSignalName } from '../contract/signals.js';
import type { PendingTarget } from '../client/decisions/send-decision.js';
import type { RunView } from '../contract/run-view.js';
import type { DecisionBody } from './api-schemas.js';
import { ApiError } from './api-error.js';

/** A decision of the API as the run takes it: the signal, its fields (no actor, no token), the action. */
export interface RunDecision {
  readonly signal: DecisionSignalName;
  readonly fields: Record<string, unknown>;
  /** The action decided; absent for a cancellation (bound to the run). */
  readonly pending: PendingTarget | undefined;
}

/**
 * The signal a decision body is, bound to what the run waits for now. The body must name the pending
 * action (`actionId`) for approve, confirm, reject and request_more_info, so a decision never lands on an action the
 * caller did not see.
 * @throws ApiError 409 `signal.no_pending_action` when the run waits for nothing of this kind,
 *   409 `signal.action_mismatch` when another action waits.
 */
export function runDecision(runId: string, view: RunView, body: DecisionBody): RunDecision {
  const p = view.pendingAction;
  const none = (what: string) =>
    new ApiError(
      409,
      'signal.no_pending_action',
      `run ${runId} is not waiting for ${what} (status ${view.status})`,
    );
  switch (body.decision) {
    case 'approve':
    case 'confirm':
    case 'reject':
    case 'request_more_info': {
      if (!p || (p.kind !== 'confirmation' && p.kind !== 'human')) throw none('a decision');
      if (p.actionId !== body.actionId)
        throw new ApiError(
          409,
          'signal.action_mismatch',
          `run ${runId} waits on action ${p.actionId}, not ${body.actionId}`,
        );
      const pending = {
        actionId: p.actionId,
        ...(p.argsDigest !== undefined ? { argsDigest: p.argsDigest } : {}),
      };
      if (body.decision === 'request_more_info')
        return { signal: 'requestMoreInfo', fields: { question: body.question }, pending };
      const fields = body.reason !== undefined ? { reason: body.reason } : {};
      return { signal: body.decision, fields, pending };
    }
    case 'reconcile': {
      if (p?.kind !== 'reconcile') throw none('reconciliation');
      const { decision: _d, ...fields } = body;
      return { signal: 'reconcile', fields, pending: { actionId: p.actionId } };
    }
    case 'input': {
      if (p?.kind !== 'input') throw none('input');
      const slot = body.slot ?? p.slot;
      if (slot !== p.slot)
        throw new ApiError(
          409,
          'signal.action_mismatch',
          `run ${runId} waits for input ${p.slot}, not ${slot}`,
        );
      return {
        signal: 'provideInput',
        fields: { slot, value: body.value },
        pending: { actionId: p.actionId },
      };
    }
  }
}

/** Reason codes of a refused decision that mean "this caller may not": HTTP 403; the rest are 409 or 422. */
const FORBIDDEN = new Set([
  'decision.role_missing',
  'decision.no_rule',
  'decision.requester_cannot_approve',
  'decision.customer_cannot_approve',
  'decision.not_the_customer',
  'decision.same_approver',
  'decision.not_a_delegate',
  'decision.wrong_tenant',
  'decision.customer_confirmation_required',
  'decision.not_a_confirmation',
  'decision.not_allowed',
]);

/** The HTTP status of the run's answer to a decision. */
export function decisionStatus(o: { accepted: boolean; code: string }): number {
  if (o.accepted) return 200;
  if (FORBIDDEN.has(o.code)) return 403;
  if (o.code.startsWith('signal.')) return 409;
  return 422;
}
