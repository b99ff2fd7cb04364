import type { BudgetExhaustion } from './budget.js';
import type { TerminalReason } from './run-state.js';

/**
 * Thrown inside the runner to end a run in a typed terminal state (a budget, a cancellation, a
 * failed completion). Caught by {@link Runner.execute}; never escapes to Temporal.
 */
export class RunStop extends Error {
  constructor(
    readonly status: 'failed' | 'cancelled' | 'budget_exhausted',
    readonly reason: TerminalReason,
  ) {
    super(reason.message);
    this.name = 'RunStop';
  }
}

/** The stop of a run whose budget `e` is exhausted: status `budget_exhausted`, code `budget.<name>`. */
function budgetStop(e: BudgetExhaustion): RunStop {
  return new RunStop('budget_exhausted', {
    code: `budget.${e.budget}`,
    message: `budget ${e.budget} exhausted (limit ${e.limit}, used ${e.used})${e.detail ? ` (${e.detail})` : ''}`,
    details: { ...e },
  });
}

/**
 * When a budget is exhausted (`e` set): record `budget.exhausted` through `emit`, then stop the run.
 * @throws RunStop (`budget_exhausted`) when `e` is set; returns otherwise.
 */
export function stopIfExhausted(
  e: BudgetExhaustion | undefined,
  emit: (type: 'budget.exhausted', data: Record<string, unknown>) => void,
): void {
  if (e === undefined) return;
  emit('budget.exhausted', { ...e });
  throw budgetStop(e);
}
