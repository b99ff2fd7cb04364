import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TokenDecision } from '../../contract/token-claims.js';
import {
  DECISION_REFUSED,
  UPDATE_NAMES,
  type DecisionOutcome,
  type DecisionSignalName,
} from '../../contract/signals.js';
import type { DecisionKey } from './decision-key.js';
import { signDecision, type OnBehalfOf } from './sign-decision.js';

/** The token decision each decision signal carries. */
export const TOKEN_DECISION_OF: Readonly<Record<DecisionSignalName, TokenDecision>> = {
  approve: 'approve',
  reject: 'reject',
  confirm: 'confirm',
  reconcile: 'reconcile',
  provideInput: 'input',
  cancelRun: 'cancel',
  requestMoreInfo: 'request_more_info',
};

/** The run a decision is for, as its `state` query shows it (`runId` is the workflow id). */
export interface RunRef {
  readonly runId: string;
  readonly firstExecutionRunId?: string;
}

/** The action a decision is about: the run's pending action as the `state` query shows it. */
export interface PendingTarget {
  readonly actionId: string;
  readonly argsDigest?: string | null;
}

/**
 * The signed payload of a decision: `fields` (reason, outcome, value...) with the actor set to the
 * key's principal, the action id where the signal names one, and the token bound to the run (`run`: its
 * `state` view) and the pending action (`pending` is ignored for `cancelRun`, which is bound to the run).
 * @throws Error when the view shows no `firstExecutionRunId` (a run from before signed decisions).
 */
export function signedPayload(
  key: DecisionKey,
  run: RunRef,
  signal: DecisionSignalName,
  fields: Readonly<Record<string, unknown>>,
  pending: PendingTarget | undefined,
  o: { readonly ttlSeconds?: number; readonly now?: Date; readonly onBehalfOf?: OnBehalfOf } = {},
): Record<string, unknown> & { token: string } {
  const workflowId = run.runId;
  const firstExecutionRunId = run.firstExecutionRunId;
  if (firstExecutionRunId === undefined)
    throw new Error(`run ${workflowId} shows no firstExecutionRunId: it does not take signed decisions`);
  const namesAction =
    signal === 'approve' || signal === 'reject' || signal === 'confirm' || signal === 'requestMoreInfo';
  if (signal !== 'cancelRun' && pending === undefined)
    throw new Error(`a ${signal} decision needs the pending action it decides`);
  const payload: Record<string, unknown> = {
    ...(namesAction ? { actionId: pending!.actionId } : {}),
    ...fields,
    actor: o.onBehalfOf?.sub ?? key.principal,
  };
  const target =
    signal === 'cancelRun'
      ? { workflowId, firstExecutionRunId, actionId: 'cancel', argsDigest: null }
      : {
          workflowId,
          firstExecutionRunId,
          actionId: pending!.actionId,
          argsDigest: pending!.argsDigest ?? null,
        };
  return signDecision(key, target, TOKEN_DECISION_OF[signal], payload, o);
}

/**
 * Send a decision by the `decide` update and return the run's answer: accepted, or refused with its
 * reason code. A decision the run would refuse is refused by the update's validator, before it
 * enters the run's history ({@link DECISION_REFUSED}); its outcome is returned the same way.
 * @throws WorkflowUpdateFailedError for a malformed envelope (`signal.malformed`); the client's
 * errors when the run cannot be reached.
 */
export async function sendDecision(
  handle: WorkflowHandle,
  signal: DecisionSignalName,
  payload: unknown,
): Promise<DecisionOutcome> {
  try {
    return await handle.executeUpdate<DecisionOutcome, [{ signal: DecisionSignalName; payload: unknown }]>(
      UPDATE_NAMES.decide,
      { args: [{ signal, payload }] },
    );
  } catch (err) {
    const refused = refusedOutcome(err);
    if (refused) return refused;
    throw err;
  }
}

/** The outcome a validator's refusal carries, or undefined for any other failure. */
function refusedOutcome(err: unknown): DecisionOutcome | undefined {
  if (!(err instanceof WorkflowUpdateFailedError)) return undefined;
  const cause = err.cause;
  if (!(cause instanceof ApplicationFailure) || cause.type !== DECISION_REFUSED) return undefined;
  const outcome = cause.details?.[0] as Partial<DecisionOutcome> | undefined;
  if (typeof outcome?.code !== 'string' || typeof outcome.message !== 'string') return undefined;
  return { ...(outcome as DecisionOutcome), accepted: false };
}
