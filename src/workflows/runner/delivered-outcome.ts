import type { DeliveredOutcome, DeliveredWrite, Profile } from './profile.js';
import type { InvocationSummary, TerminalReason } from './run-state.js';

/** Most characters of a delivered answer's `message`, and of a profile's answer once serialized. */
const MAX_MESSAGE_CHARS = 2000;
const MAX_ANSWER_CHARS = 8000;

/**
 * The writes of a run that took effect: `write` invocations settled `succeeded` (by their executor,
 * the evidence store, the tool's reconciler or an operator), in call order. Never throws.
 */
export function deliveredWrites(invocations: readonly InvocationSummary[]): DeliveredWrite[] {
  return invocations
    .filter((i) => i.effect === 'write' && i.status === 'succeeded')
    .map((i) => ({
      seq: i.seq,
      tool: i.tool,
      version: i.version,
      ...(i.externalId !== undefined ? { externalId: i.externalId } : {}),
      ...(i.resolvedBy !== undefined ? { resolvedBy: i.resolvedBy } : {}),
    }));
}

/**
 * The runner's own answer for a run a budget ended after writes took effect: what was done (tool,
 * version, external id) and that the run stopped before it finished. Deterministic, no model call.
 */
export function summaryAnswer(outcome: DeliveredOutcome): Record<string, unknown> {
  const done = outcome.writes
    .map((w) => `${w.tool}@${w.version}${w.externalId !== undefined ? ` (${w.externalId})` : ''}`)
    .join(', ');
  const message =
    `Your request was carried out in part: ${done}. ` +
    `The run then stopped (${outcome.reason.code}) before it could finish, so nothing after that was done.`;
  return {
    outcome: 'delivered',
    message: message.slice(0, MAX_MESSAGE_CHARS),
    delivered: outcome.writes.map((w) => ({ tool: w.tool, externalId: w.externalId ?? null })),
  };
}

/**
 * The answer the customer gets when a budget ended the run after `outcome.writes` took effect: the
 * profile's {@link Profile.deliveredAnswer} when it has one and it returns a value that serializes to
 * at most 8000 characters, else {@link summaryAnswer}. `composedBy` says which.
 * Failure semantics: never throws (a profile's answer that throws or is unusable is replaced).
 */
export function composeDeliveredAnswer(
  profile: Profile,
  outcome: DeliveredOutcome,
): { readonly answer: unknown; readonly composedBy: 'profile' | 'runner' } {
  if (profile.deliveredAnswer) {
    try {
      const answer = profile.deliveredAnswer(outcome);
      const size = answer === undefined ? Infinity : JSON.stringify(answer).length;
      if (answer !== null && size <= MAX_ANSWER_CHARS) return { answer, composedBy: 'profile' };
    } catch {
      // The runner's summary stands in for an answer the profile could not compose.
    }
  }
  return { answer: summaryAnswer(outcome), composedBy: 'runner' };
}

/** The terminal reason of a budget end that delivered `writes`: the budget's code, and the outcome. */
export function deliveredReason(reason: TerminalReason, writes: readonly DeliveredWrite[]): TerminalReason {
  return { ...reason, outcome: 'delivered', delivered: writes };
}
