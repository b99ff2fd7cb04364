import { ApplicationFailure } from '@temporalio/workflow';
import { DECISION_REFUSED, type DecisionOutcome } from '../../contract/signals.js';

/**
 * In the `decide` update's validator: let an accepted outcome through, throw a refused one. The
 * update is then rejected before it is admitted (nothing in history, no update budget used); the
 * caller reads the outcome from the failure ({@link DECISION_REFUSED}, `details[0]`), as
 * `sendDecision` does.
 * @throws ApplicationFailure `decision.refused` with the refused {@link DecisionOutcome} as details.
 */
export function refuseUnlessAccepted(outcome: DecisionOutcome): void {
  if (outcome.accepted) return;
  throw ApplicationFailure.create({
    type: DECISION_REFUSED,
    message: `${outcome.code}: ${outcome.message}`,
    details: [outcome],
    nonRetryable: true,
  });
}
