import type { HumanRequest, PendingAction } from '../../contract/pending-action.js';
import { requestExpiry, type GateParts } from './gate-parts.js';
import { inputRequest } from './human-requests.js';
import type { WaitOptions } from './run-context.js';
import { RunStop } from './run-stop.js';

/**
 * Wait for a `provideInput` signal for `slot` (`continued`: the wait a previous generation moved to
 * this one, taken up with the same action). The request expires (`agent-run-human-request-expiry-v1`)
 * after the run's request timeout: the run then records `human.request_expired` and takes
 * `options.expiryDefault` when the profile declared one (recorded as `human.decided` by `system`,
 * code `input.expired`), else it ends.
 * @throws RunStop(failed, `input.expired`) when the request expired without a declared default;
 *   RunStop(cancelled), ContinueAsNewRequested or RunStop(failed, `run.history_limit`) as
 *   `HumanWait.wait` does.
 */
export async function awaitInput(
  g: GateParts,
  slot: string,
  prompt: string,
  options: WaitOptions,
  continued: { action: PendingAction; request: HumanRequest } | undefined,
): Promise<string> {
  const { action, request } = continued ?? inputWait(g, slot, prompt);
  const { expiryDefault: _default, ...waitOptions } = options;
  const received = await g.humanWait.wait(action, 'awaiting_input', `input_required:${slot}`, request, {
    ...waitOptions,
    continued: continued !== undefined,
  });
  if (received?.kind === 'input') {
    g.core.emit('human.decided', { actionId: action.actionId, slot, actor: received.actor });
    return received.value;
  }
  if (received === undefined && action.expiresAt !== null) return inputExpired(g, action, slot, options);
  throw new Error('input wait ended without a value');
}

/** A new input wait for `slot`: its action id, expiry and request. */
function inputWait(
  g: GateParts,
  slot: string,
  prompt: string,
): { action: PendingAction; request: HumanRequest } {
  const actionId = g.authority ? g.authority.nextActionId('i', slot) : `input-${slot}`;
  if (g.authority) g.intake.waiting = { action: { actionId }, customer: false, dispatch: false };
  const expiresAt = requestExpiry(g);
  const action: PendingAction = { actionId, kind: 'input', slot, expiresAt };
  return { action, request: inputRequest(g.core.state.runId, slot, prompt, expiresAt) };
}

/** The input request expired: its recorded outcome, the declared default or the end of the run. */
function inputExpired(g: GateParts, action: PendingAction, slot: string, options: WaitOptions): string {
  const fallback = options.expiryDefault;
  g.core.emit('human.request_expired', {
    actionId: action.actionId,
    kind: 'input',
    slot,
    expiresAt: action.expiresAt,
    outcome: fallback !== undefined ? 'default_taken' : 'run_failed',
  });
  if (fallback === undefined)
    throw new RunStop('failed', {
      code: 'input.expired',
      message: `the input request for ${slot} expired at ${String(action.expiresAt)} without an answer, and the profile declares no default`,
      details: { actionId: action.actionId, slot, expiresAt: action.expiresAt },
    });
  g.core.emit('human.decided', {
    actionId: action.actionId,
    slot,
    actor: 'system',
    code: 'input.expired',
    defaulted: true,
  });
  return fallback;
}
