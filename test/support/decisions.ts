import type { WorkflowHandle } from '@temporalio/client';
import type { DecisionOutcome, DecisionSignalName } from '../../src/contract/signals.js';
import type { DecisionKey } from '../../src/client/decisions/decision-key.js';
import { sendDecision, signedPayload } from '../../src/client/decisions/send-decision.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { waitForState } from './harness.js';
import { TEST_KEYS } from './principals.js';

/** Who decides in tests, unless a test says otherwise. */
export const TEST_APPROVER = TEST_KEYS.ops.principal;

const awaitingDecision = (v: RunView) =>
  v.pendingAction?.kind === 'confirmation' || v.pendingAction?.kind === 'human';

export interface DecideOptions {
  /** Whose key signs (default the tests' operator). */
  readonly key?: DecisionKey;
  /** Send as a signal (default) or by the `decide` update (returns the run's answer). */
  readonly via?: 'signal' | 'update';
  readonly timeoutMs?: number;
}

/**
 * Sign `fields` as `key`'s decision on the run's pending action (as the view shows it) and send it.
 * Returns the update's answer, or undefined for a signal.
 */
export async function decide(
  handle: WorkflowHandle,
  signal: DecisionSignalName,
  fields: Readonly<Record<string, unknown>>,
  view: RunView | undefined,
  o: DecideOptions = {},
): Promise<DecisionOutcome | undefined> {
  const pending = view?.pendingAction ?? undefined;
  // The token is bound to the run as its `state` query shows it.
  const run = view ?? (await waitForState(handle, (v) => v.firstExecutionRunId !== undefined));
  const payload = signedPayload(o.key ?? TEST_KEYS.ops, run, signal, fields, pending);
  if (o.via === 'update') return sendDecision(handle, signal, payload);
  await handle.signal(signal, payload);
  return undefined;
}

/** Wait until the run asks for a decision, then approve exactly that pending action (signed). */
export async function approvePending(
  handle: WorkflowHandle,
  o: DecideOptions & { reason?: string } = {},
): Promise<RunView> {
  const view = await waitForState(handle, awaitingDecision, o.timeoutMs);
  await decide(handle, 'approve', o.reason !== undefined ? { reason: o.reason } : {}, view, o);
  return view;
}

/** Wait until the run asks for a decision, then reject exactly that pending action (signed). */
export async function rejectPending(
  handle: WorkflowHandle,
  o: DecideOptions & { reason?: string } = {},
): Promise<RunView> {
  const view = await waitForState(handle, awaitingDecision, o.timeoutMs);
  await decide(handle, 'reject', { reason: o.reason ?? 'not approved' }, view, o);
  return view;
}
