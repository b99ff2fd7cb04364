import type { NoEffectQuestion } from './human-requests.js';
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
 * could tell; no automatic attempt is left; or the write is not idempotent by its key and was settled
 * not applied), `retry_attempt` (it provably did not take effect: run it again under the same approval
 * and idempotency key), `fail` (no attempt left, in runs from before a person is asked then). Each is a
 * `recovery.decided` event with its reason.
 */
export type RecoveryDecision = 'resume' | 'reconcile' | 'await_human' | 'retry_attempt' | 'fail';

/**
 * How an attempt ended without effect: `not_started` (it failed before its executor ran: nothing ran),
 * `settlement` (it was lost, and the evidence store or the reconciler settled it `not_applied`: a
 * late or wrong answer there is possible), `person` (a person said `not_applied`: their word to try
 * again). `reason` is what the decision records (`tool.not_started`, `not_applied:reconciler`, ...).
 */
export interface NoEffect {
  readonly reason: string;
  readonly by: 'not_started' | 'settlement' | 'person';
}

/** Why a person is asked about a write that did not take effect (the waiting reason). */
export type AskPersonReason = NoEffectQuestion['why'];

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
    this.enabled ??= this.core.features.on('writeRecovery');
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
   * What follows attempt `attempt`, which provably did not take effect (`last`):
   * - `retry`: `retry_attempt` was decided and its pause waited; run attempt `attempt + 1`. While
   *   attempts are left (for a `settlement`, only when the tool is `idempotentByKey` or the run is
   *   from before `writeRetryNeedsIdempotency`), and past them when a person said `not_applied` (a
   *   person's word is one more attempt, never a loop of its own);
   * - `write_not_idempotent`: a `settlement` of a write not idempotent by its key, attempts left;
   *   `await_human` with `write.not_idempotent` was decided, and a person now says retry
   *   (`not_applied`), give up (`failed`) or done outside (`succeeded`);
   * - `write_attempts_exhausted`: no attempt is left; `await_human` with `tool.attempts_exhausted`
   *   was decided, and a person answers as above;
   * - `fail`: no recovery (histories from before it), or no attempt left in a run from before the
   *   exhaustion patch (`fail` with `tool.attempts_exhausted`).
   * Never throws; asks `writeRetryNeedsIdempotency` only for a non-idempotent write's settlement.
   */
  async afterNoEffect(
    attempt: number,
    last: NoEffect,
    idempotentByKey: boolean,
  ): Promise<'retry' | 'fail' | AskPersonReason> {
    if (!this.active) return 'fail';
    if (attempt < MAX_WRITE_ATTEMPTS) {
      if (
        last.by === 'settlement' &&
        !idempotentByKey &&
        this.core.features.on('writeRetryNeedsIdempotency')
      ) {
        this.decide(attempt, 'await_human', 'write.not_idempotent', { lastReason: last.reason });
        return 'write_not_idempotent';
      }
      await this.retry(attempt, last.reason);
      return 'retry';
    }
    if (!this.core.features.on('writeExhaustionToPerson')) {
      this.decide(attempt, 'fail', 'tool.attempts_exhausted', { lastReason: last.reason });
      return 'fail';
    }
    if (last.by === 'person') {
      await this.retry(attempt, last.reason);
      return 'retry';
    }
    this.decide(attempt, 'await_human', 'tool.attempts_exhausted', { lastReason: last.reason });
    return 'write_attempts_exhausted';
  }

  /**
   * Decide `retry_attempt`, wait its pause (status `retry_scheduled`) and reset the invocation. Under
   * the step contracts the attempt is first recorded `failed_retryable` (`tool.attempt_failed`, and the
   * invocation's status during the pause).
   */
  async retry(attempt: number, reason: string): Promise<void> {
    if (this.core.features.on('stepContracts')) {
      this.invocation.status = 'failed_retryable';
      const { seq, tool } = this.invocation;
      this.core.emit('tool.attempt_failed', { seq, tool, attempt, status: 'failed_retryable', reason });
    }
    this.decide(attempt + 1, 'retry_attempt', reason, { delayMs: retryDelayMs(attempt) });
    this.core.transition('retry_scheduled', { waitingReason: `retry_attempt:${this.invocation.seq}` });
    this.core.ports.publish(this.core.state);
    await this.core.ports.sleep(retryDelayMs(attempt));
    this.core.transition('running', { waitingReason: null });
    this.invocation.status = 'pending';
    delete this.invocation.resolvedBy;
    delete this.invocation.errorCode;
  }
}
