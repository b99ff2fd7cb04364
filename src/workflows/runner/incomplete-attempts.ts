import type { Observation } from '../../contract/observation.js';
import type { ToolDefinition } from '../../contract/tool.js';
import { statusObservation, type ObservationBase } from '../../contract/observation-text.js';
import { TOOL_NOT_STARTED } from '../../contract/failure-types.js';
import type { HumanGate } from './human-gate.js';
import { LostWriteResolver } from './lost-write.js';
import type { ToolActivityOutcome, ToolCallInput } from './ports.js';
import type { RunCore } from './run-core.js';
import type { InvocationSummary } from './run-state.js';
import { RunStop } from './run-stop.js';
import { settleResult } from './settle-result.js';
import { WriteRecovery, type NoEffect } from './write-recovery.js';
import { noteWorkerRefusals } from './worker-refusals.js';

/**
 * An invocation whose first attempt did not complete (seed 004): a failure ends it, unless a write
 * failed before its executor ran and recovery tries it again; a cancellation ends the run; a lost
 * read may be asked again; a lost write is resolved through the evidence store, the tool's
 * reconciler, or a person, and tried again under recovery only when it provably did not take effect.
 */
export class IncompleteAttempts {
  private readonly lostWrites: LostWriteResolver;

  constructor(
    private readonly core: RunCore,
    gate: HumanGate,
  ) {
    this.lostWrites = new LostWriteResolver(core, gate);
  }

  /**
   * The attempts of an invocation from its first, which did not complete (`firstOutcome`), on.
   * Resolves with the call's observation: the result of a later attempt, a terminal failure, an
   * interrupted read, or how a lost write was settled.
   * Failure semantics: throws RunStop(cancelled) when the run was cancelled while the tool ran (a
   * write is settled as far as the evidence store and reconciler can tell first), and what the
   * waits for a person throw (see `HumanGate.awaitReconciliation`).
   */
  async afterIncomplete(
    def: ToolDefinition,
    invocation: InvocationSummary,
    base: ObservationBase,
    first: ToolCallInput,
    firstOfItsKind: boolean,
    summary: string,
    firstOutcome: ToolActivityOutcome,
  ): Promise<Observation> {
    const recovery = new WriteRecovery(this.core, invocation);
    let outcome = firstOutcome;
    for (let attempt = 1; ; attempt += 1) {
      if (attempt > 1) this.core.steps.callAttempt(this.core.steps.currentCall, attempt);
      const input = attempt === 1 ? first : { ...first, attempt, events: this.core.takeOutbox() };
      if (attempt > 1) {
        outcome = await this.core.ports.callTool(input, { summary: `${summary} attempt ${attempt}` });
        noteWorkerRefusals(this.core, invocation, outcome);
      }
      if (outcome.kind !== 'completed') this.core.requeue(input.events); // the activity may not have stored them
      switch (outcome.kind) {
        case 'completed':
          return settleResult(this.core, invocation, base, outcome.result, firstOfItsKind, undefined);
        case 'failed': {
          if (def.effect === 'write' && outcome.code === TOOL_NOT_STARTED) {
            const next = await this.afterNoEffect(
              def,
              recovery,
              invocation,
              base,
              input,
              firstOfItsKind,
              attempt,
              {
                reason: outcome.code,
                by: 'not_started',
              },
            );
            if (next === 'retry') continue;
            if (next !== 'fail') return next;
          }
          invocation.status = 'failed_terminal';
          invocation.errorCode = outcome.code;
          this.core.emit('tool.failed', {
            seq: invocation.seq,
            tool: def.name,
            status: 'failed_terminal',
            errorCode: outcome.code,
            message: outcome.message,
          });
          return statusObservation(base, 'failed_terminal', outcome.code, outcome.message);
        }
        case 'cancelled':
          if (def.effect === 'read') invocation.status = 'interrupted';
          else await this.lostWrites.settleCancelledWrite(invocation, base, input, firstOfItsKind);
          throw new RunStop('cancelled', {
            code: 'run.cancelled',
            message: 'cancelled while a tool was running',
          });
        case 'lost': {
          if (def.effect === 'read') return this.interrupted(invocation, base, outcome.message);
          const observation = await this.lostWrites.resolveLostWrite(
            invocation,
            base,
            input,
            firstOfItsKind,
            recovery,
            attempt,
          );
          if (invocation.status !== 'not_applied') return observation;
          const byPerson = invocation.resolvedBy?.startsWith('operator:') ?? false;
          const next = await this.afterNoEffect(
            def,
            recovery,
            invocation,
            base,
            input,
            firstOfItsKind,
            attempt,
            {
              reason: `not_applied:${invocation.resolvedBy ?? 'unknown'}`,
              by: byPerson ? 'person' : 'settlement',
            },
          );
          if (next === 'retry') continue;
          return next === 'fail' ? observation : next;
        }
        default: {
          // Only a broken port gives another kind: fail the workflow task (retried) rather than loop.
          const unknown: never = outcome;
          throw new TypeError(`unknown tool activity outcome ${JSON.stringify(unknown).slice(0, 200)}`);
        }
      }
    }
  }

  /**
   * After an attempt of a write that provably did not take effect: `retry` (run the next attempt),
   * `fail` (the caller settles the write as failed), or the observation of a person's answer once
   * the automatic attempts ran out or the write, not idempotent by its key, was settled not applied
   * (`succeeded` done outside, `failed` given up); a person's `not_applied` there is `retry`.
   */
  private async afterNoEffect(
    def: ToolDefinition,
    recovery: WriteRecovery,
    invocation: InvocationSummary,
    base: ObservationBase,
    input: ToolCallInput,
    firstOfItsKind: boolean,
    attempt: number,
    last: NoEffect,
  ): Promise<'retry' | 'fail' | Observation> {
    const next = await recovery.afterNoEffect(attempt, last, def.idempotentByKey === true);
    if (next === 'retry' || next === 'fail') return next;
    const answer = await this.lostWrites.askAfterAttempts(invocation, base, input, firstOfItsKind, {
      why: next,
      attempts: attempt,
      lastReason: last.reason,
    });
    if (invocation.status !== 'not_applied') return answer;
    await recovery.retry(attempt, `not_applied:${invocation.resolvedBy ?? 'operator'}`);
    return 'retry';
  }

  private interrupted(invocation: InvocationSummary, base: ObservationBase, message: string): Observation {
    invocation.status = 'interrupted';
    this.core.emit('tool.failed', {
      seq: invocation.seq,
      tool: invocation.tool,
      status: 'interrupted',
      message,
    });
    return statusObservation(
      base,
      'interrupted',
      'tool.interrupted',
      `${message}; the read may be requested again`,
    );
  }
}
