import type { Observation } from '../../contract/observation.js';
import { rejectedObservation } from '../../contract/observation-text.js';
import { checkStep } from './budget.js';
import type { InvalidToolCall } from './ports.js';
import type { RunCore } from './run-core.js';
import { stopIfExhausted } from './run-stop.js';

/** Most characters of the model's name, id or the message kept from an invalid call (the activity bounds them too). */
const MAX_NAME_CHARS = 64;
const MAX_MESSAGE_CHARS = 300;
const MAX_DIGEST_CHARS = 80;

/** The key the duplicate-call guard counts an invalid call under: the same garbage again is a duplicate. */
export function invalidCallKey(call: InvalidToolCall): string {
  const name = (call.tool ?? call.name).slice(0, MAX_NAME_CHARS);
  return `invalid:${name}#${call.argsDigest.slice(0, MAX_DIGEST_CHARS)}`;
}

/**
 * A tool call the model sent that is not a proposal (a name it was not offered, arguments that are
 * not a JSON object; `ModelDecision.invalidToolCalls`): a `rejected` observation the model reads on
 * its next call, with the call's stable code (`tool.not_offered`, `tool.arguments_not_json`,
 * `tool.arguments_not_object`). Nothing is scheduled and nothing runs. It counts like a proposal:
 * one step (`max_steps`, `no_progress`), and the same invalid call (same name, same argument text)
 * counts against `maxDuplicateCalls`, so a model that keeps sending garbage ends the run with the
 * existing reasons. Events: `tool.proposed` (with `invalid`: the code) and `tool.failed` (status
 * `rejected`, `errorCode`: the code), each with the model's name cut to 64 characters.
 * @throws RunStop (`budget_exhausted`) when a step budget or the duplicate guard is exhausted.
 */
export function rejectInvalidToolCall(core: RunCore, call: InvalidToolCall): Observation {
  const { state } = core;
  const emit = (t: string, d: Record<string, unknown>): void => core.emit(t, d);
  stopIfExhausted(checkStep(state.limits, state.budget), emit);
  state.budget.steps += 1;
  state.budget.stepsWithoutProgress += 1;
  const name = call.name.slice(0, MAX_NAME_CHARS);
  const proposalId = call.id.slice(0, MAX_NAME_CHARS);
  const at = (call.tool ?? '').lastIndexOf('@');
  const tool = at > 0 ? call.tool!.slice(0, at).slice(0, MAX_NAME_CHARS) : name;
  const version = at > 0 ? call.tool!.slice(at + 1).slice(0, MAX_NAME_CHARS) : '';
  emit('tool.proposed', { tool, version: version || null, proposalId, invalid: call.code });
  const key = invalidCallKey(call);
  const seen = state.budget.callDigests[key] ?? 0;
  if (seen + 1 > state.limits.maxDuplicateCalls)
    stopIfExhausted(
      { budget: 'duplicate_call', limit: state.limits.maxDuplicateCalls, used: seen, detail: key },
      emit,
    );
  state.budget.callDigests[key] = seen + 1;
  const message = call.message.slice(0, MAX_MESSAGE_CHARS);
  const details = { proposalId, name, argsChars: call.argsChars };
  emit('tool.failed', { tool, version, status: 'rejected', errorCode: call.code, message, details });
  return rejectedObservation(
    { runId: state.runId, seq: -1, tool, version, at: core.ports.now() },
    call.code,
    message,
    details,
  );
}
