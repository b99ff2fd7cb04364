import type { RunCore } from './run-core.js';
import type { InvocationSummary } from './run-state.js';

/** Attempts of one approved write, the first included, before the run gives up on it. */
export const MAX_WRITE_ATTEMPTS = 5;

/** Pause before attempt `n + 1` (workflow timer): 2 s, 4 s, 8 s, 16 s, then 30 s. */
export function retryDelayMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** attempt);
}

/**
 * The recovery decisions of seed 004 for a write attempt that did not complete: `resume` (its result
 * was found), `reconcile` (ask the evidence store and the tool's reconciler), `await_human` (nobody
 * could tell), `retry_attempt` (settled not applied: run it again under the same approval and
 * idempotency key), `fail` (no attempt left). Each is a `recovery.decided` event with its reason.
 */
export type RecoveryDecision = 'resume' | 'reconcile' | 'await_human' | 'retry_attempt' | 'fail';

/**
 * Whether one write invocation is under recovery (asked once, the first time an attempt does not
 * complete: a Temporal host answers with `patched()`), and the events of its decisions. Runs whose
 * history predates recovery never record a decision and never retry.
 */
export class WriteRecovery {
  private enabled: boolean | undefined;

  constructor(
    private readonly core: RunCore,
    private readonly invocation: InvocationSummary,
  ) {}

  /** True when this run recovers writes. Asked at the first attempt that did not complete. */
  get active(): boolean {
    this.enabled ??= this.core.ports.writeRecovery?.() ?? false;
    return this.enabled;
  }

  /** Record a decision (only for runs under recovery). */
  decide(
    attempt: number,
    decision: RecoveryDecision,
    reason: string,
    details: Record<string, unknown> = {},
  ): void {
    if (!this.active) return;
    this.core.emit('recovery.decided', {
      seq: this.invocation.seq,
      tool: this.invocation.tool,
      attempt,
      decision,
      reason,
      ...details,
    });
  }

  /**
   * After attempt `attempt` was settled not applied (or failed before its executor ran): decide
   * `retry_attempt` and wait the retry delay, or `fail` when no attempt is left.
   * @returns true when the caller should run attempt `attempt + 1`.
   */
  async retryAfter(attempt: number, reason: string): Promise<boolean> {
    if (!this.active) return false;
    if (attempt >= MAX_WRITE_ATTEMPTS) {
      this.decide(attempt, 'fail', 'tool.attempts_exhausted', { lastReason: reason });
      return false;
    }
    this.decide(attempt + 1, 'retry_attempt', reason, { delayMs: retryDelayMs(attempt) });
    this.core.transition('retry_scheduled', { waitingReason: `retry_attempt:${this.invocation.seq}` });
    this.core.ports.publish(this.core.state);
    await this.core.ports.sleep(retryDelayMs(attempt));
    this.core.transition('running', { waitingReason: null });
    this.invocation.status = 'pending';
    delete this.invocation.resolvedBy;
    delete this.invocation.errorCode;
    return true;
  }
}
