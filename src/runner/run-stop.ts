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
