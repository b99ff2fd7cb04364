import { isTerminal } from '../../contract/statuses.js';
import type { RunCore } from './run-core.js';
import type { TerminalReason } from './run-state.js';
import { RunStop } from './run-stop.js';

/** The runner as a run that did not finish ends. */
export interface InterruptedRun extends RunCore {
  /** Why the run was cancelled: by a signal's actor, or by a Temporal cancellation request. */
  readonly cancelReason: string;
}

/**
 * End a run that `err` interrupted (a {@link RunStop}, the host's cancellation, or any other error)
 * in its terminal status: a cancellation once the wall-clock deadline was reached is the deadline
 * budget's exhaustion (`budget.exhausted` is recorded even when the run already ended); a
 * cancellation or a cancel request, `cancelled`; any other error, `failed` with its `code` (default
 * `run.internal_error`). The pending wait is dropped, the reason kept, and `run.cancelled` or
 * `run.failed` recorded. A run already terminal is left as it is.
 * `deadlineReached`: true once the run's wall-clock deadline timer fired (asked only on a cancellation).
 * `deliver`: asked for a `budget_exhausted` end before it is recorded; it may add what the run
 * delivered (`RunFinish.deliver`), and `run.failed` then carries the customer's answer (`output`).
 * Failure semantics: throws only what the transition table throws for a status it forbids.
 */
export function endInterrupted(
  run: InterruptedRun,
  err: unknown,
  deadlineReached: () => boolean | undefined,
  deliver?: (reason: TerminalReason) => TerminalReason,
): void {
  const s = run.state;
  let stop: RunStop;
  const cancelled = run.isCancellation(err) || (err instanceof RunStop && err.status === 'cancelled');
  if (cancelled && deadlineReached()) {
    stop = new RunStop('budget_exhausted', {
      code: 'budget.wall_clock_deadline',
      message: `budget wall_clock_deadline exhausted (limit ${s.limits.deadlineSeconds} s)`,
      details: { budget: 'wall_clock_deadline', limit: s.limits.deadlineSeconds },
    });
    run.emit('budget.exhausted', { budget: 'wall_clock_deadline', limit: s.limits.deadlineSeconds });
  } else if (err instanceof RunStop) stop = err;
  else if (run.isCancellation(err) || run.isCancelRequested()) {
    stop = new RunStop('cancelled', { code: 'run.cancelled', message: run.cancelReason });
  } else {
    const e = err as { message?: string; code?: string };
    stop = new RunStop('failed', {
      code: e.code ?? 'run.internal_error',
      message: e.message ?? String(err),
    });
  }
  if (isTerminal(s.status)) return;
  s.pendingAction = null;
  s.humanRequest = null;
  const reason = stop.status === 'budget_exhausted' && deliver ? deliver(stop.reason) : stop.reason;
  s.terminalReason = reason;
  run.transition(stop.status, { waitingReason: null });
  run.emit(stop.status === 'cancelled' ? 'run.cancelled' : 'run.failed', {
    status: stop.status,
    reason,
    budget: { ...s.budget },
    ...(reason.outcome === 'delivered' ? { output: s.output } : {}),
  });
}
