import type { Observation } from '../../contract/observation.js';
import type { ReconcileSignal } from '../../contract/signals.js';
import type { HumanGate } from './human-gate.js';
import { statusObservation, type ObservationBase } from '../../contract/observation-text.js';
import type {
  OperatorResolutionOutcome,
  OperatorResolutionRecorder,
  ToolCallInput,
  WriteResolution,
} from './ports.js';
import type { RunCore } from './run-core.js';
import type { InvocationSummary } from './run-state.js';
import { settleResult } from './settle-result.js';
import type { WriteRecovery } from './write-recovery.js';
import type { NoEffectQuestion } from './human-requests.js';

/**
 * Settling a write whose activity was lost or cancelled in flight (seed 000 §5): ask the evidence
 * store, then the tool's read-only reconciler; if neither can tell, a person decides through a
 * `reconcile` signal (the run waits in `awaiting_human` / `unknown_write_outcome`), and the decision
 * is recorded in the evidence store. The write is never dispatched again.
 */
export class LostWriteResolver {
  constructor(
    private readonly core: RunCore,
    private readonly gate: HumanGate,
  ) {}

  /**
   * A write cancelled in flight may have taken effect: record what the evidence store or the tool's
   * reconciler knows before the run ends, so the record shows an applied write. Without an answer it
   * stays `outcome_unknown` (nobody is asked: the run is ending).
   */
  async settleCancelledWrite(
    invocation: InvocationSummary,
    base: ObservationBase,
    input: ToolCallInput,
    firstOfItsKind: boolean,
  ): Promise<void> {
    invocation.status = 'outcome_unknown';
    const resolution = await this.core.ports.resolveLostInvocation({
      ...input,
      events: this.core.takeOutbox(),
    });
    const known = this.settleKnown(invocation, base, resolution, firstOfItsKind);
    if (known === undefined)
      this.core.emit('tool.failed', {
        seq: invocation.seq,
        tool: invocation.tool,
        status: 'outcome_unknown',
      });
  }

  /**
   * Settle a write attempt that did not complete: the evidence store, then the tool's reconciler,
   * then a person. Under recovery each step is a `recovery.decided` event, and a settling activity
   * that fails for good (the store stays down past its retries) hands the question to a person
   * instead of failing the run. Leaves the invocation `not_applied` when the attempt did not take
   * effect (the caller may try again).
   */
  async resolveLostWrite(
    invocation: InvocationSummary,
    base: ObservationBase,
    input: ToolCallInput,
    firstOfItsKind: boolean,
    recovery: WriteRecovery,
    attempt: number,
  ): Promise<Observation> {
    invocation.status = 'outcome_unknown';
    this.core.emit('tool.failed', { seq: invocation.seq, tool: invocation.tool, status: 'outcome_unknown' });
    recovery.decide(attempt, 'reconcile', 'tool.outcome_unknown');
    const resolution = await this.resolve(input, recovery);
    const known = this.settleKnown(invocation, base, resolution, firstOfItsKind);
    if (known !== undefined) {
      const applied = resolution.kind === 'result_recorded' || resolution.kind === 'reconciled_succeeded';
      if (applied) recovery.decide(attempt, 'resume', resolution.kind);
      return known;
    }
    recovery.decide(
      attempt,
      'await_human',
      resolution.kind === 'unknown' ? 'reconciler_unknown' : resolution.kind,
    );
    return this.askOperator(invocation, base, input, firstOfItsKind);
  }

  /**
   * The write provably did not take effect and is not tried again automatically (write-recovery.ts):
   * its automatic attempts ran out, or it was settled not applied and its tool is not idempotent by
   * the key. A person decides, through the same `reconcile` signal, with the waiting reason
   * `question.why` (`write_attempts_exhausted`, `write_not_idempotent`): `not_applied` (try again;
   * the invocation is left `not_applied` for the caller), `failed` (give the write up: a business
   * failure) or `succeeded` (done outside the run, `externalId` naming it). Nothing is written to the
   * invocation's record in the evidence store (each attempt already holds its own result there); the
   * decision is the `human.decided` event. Throws what the wait throws (`HumanGate.awaitReconciliation`).
   */
  async askAfterAttempts(
    invocation: InvocationSummary,
    base: ObservationBase,
    input: ToolCallInput,
    firstOfItsKind: boolean,
    question: NoEffectQuestion,
  ): Promise<Observation> {
    invocation.status = 'outcome_unknown';
    return this.askOperator(invocation, base, input, firstOfItsKind, question);
  }

  /**
   * Ask the evidence store and the reconciler. Under recovery, a resolution that fails for good
   * (after its own retries) is `unknown`: a person decides. A cancellation always propagates.
   */
  private async resolve(input: ToolCallInput, recovery: WriteRecovery): Promise<WriteResolution> {
    const events = this.core.takeOutbox();
    try {
      return await this.core.ports.resolveLostInvocation({ ...input, events });
    } catch (err) {
      if (!recovery.active || this.core.isCancellation(err)) throw err;
      this.core.requeue(events); // the activity may not have stored them
      this.core.emit('tool.resolution_failed', {
        seq: input.seq,
        tool: input.tool,
        message: err instanceof Error ? err.message.slice(0, 500) : String(err).slice(0, 500),
      });
      return { kind: 'unknown' };
    }
  }

  /**
   * Wait for a person's `reconcile` decision, record it in the evidence store (not for a write that
   * provably did not take effect: `noEffect`), and settle the invocation by it (unless the executor's own result reached the store
   * meanwhile: that stands).
   */
  private async askOperator(
    invocation: InvocationSummary,
    base: ObservationBase,
    input: ToolCallInput,
    firstOfItsKind: boolean,
    noEffect?: NoEffectQuestion,
  ): Promise<Observation> {
    const recorder = noEffect ? undefined : this.core.ports.operatorResolutionRecorder?.();
    const signal = await this.gate.awaitReconciliation(
      invocation.seq,
      invocation.tool,
      invocation.version,
      noEffect,
    );
    const recorded = await this.recordOperatorResolution(recorder, input, signal);
    if (recorded?.kind === 'result_recorded') {
      // The executor's own result reached the store after all: it outranks the person's word.
      this.core.emit('human.decision_superseded', {
        seq: invocation.seq,
        actor: signal.actor,
        outcome: signal.outcome,
        by: 'evidence_store',
      });
      return settleResult(this.core, invocation, base, recorded.result, firstOfItsKind, 'evidence_store');
    }
    invocation.resolvedBy = `operator:${signal.actor}`;
    if (signal.outcome === 'succeeded') {
      invocation.status = 'succeeded';
      if (signal.externalId !== undefined) invocation.externalId = signal.externalId;
      this.core.emit('tool.completed', {
        seq: invocation.seq,
        resolvedBy: invocation.resolvedBy,
        externalId: signal.externalId ?? null,
        evidence: signal.evidence ?? null,
      });
      return {
        ...statusObservation(base, 'succeeded', null, null),
        ...(signal.externalId !== undefined ? { externalId: signal.externalId } : {}),
        output: {
          reconciledBy: signal.actor,
          ...(signal.externalId !== undefined ? { externalId: signal.externalId } : {}),
          evidence: signal.evidence ?? {},
        },
      };
    }
    invocation.status = signal.outcome === 'failed' ? 'failed_terminal' : 'not_applied';
    this.core.emit('tool.failed', {
      seq: invocation.seq,
      status: invocation.status,
      resolvedBy: invocation.resolvedBy,
    });
    return statusObservation(
      base,
      'failed_terminal',
      `tool.${signal.outcome}`,
      `operator ${signal.actor} reported ${signal.outcome}`,
    );
  }

  /**
   * Settle from what the evidence store or the tool's reconciler knew: a recorded result, or a write
   * that did not take effect. Undefined when neither could tell (`unknown`).
   */
  private settleKnown(
    invocation: InvocationSummary,
    base: ObservationBase,
    resolution: WriteResolution,
    firstOfItsKind: boolean,
  ): Observation | undefined {
    switch (resolution.kind) {
      case 'result_recorded':
      case 'reconciled_succeeded':
        return settleResult(
          this.core,
          invocation,
          base,
          resolution.result,
          firstOfItsKind,
          resolution.kind === 'result_recorded' ? 'evidence_store' : 'reconciler',
        );
      case 'no_intent':
      case 'reconciled_not_applied':
        invocation.status = 'not_applied';
        invocation.resolvedBy = resolution.kind === 'no_intent' ? 'evidence_store' : 'reconciler';
        this.core.emit('tool.failed', {
          seq: invocation.seq,
          status: 'not_applied',
          resolvedBy: invocation.resolvedBy,
        });
        return statusObservation(
          base,
          'failed_terminal',
          'tool.not_applied',
          'the write did not take effect',
        );
      case 'unknown':
        return undefined;
    }
  }

  /**
   * Record the person's decision in the evidence store (source `operator`) with the events so far.
   * Undefined when the host does not record it; the events then stay queued for the next activity.
   */
  private async recordOperatorResolution(
    recorder: OperatorResolutionRecorder | undefined,
    input: ToolCallInput,
    signal: ReconcileSignal,
  ): Promise<OperatorResolutionOutcome | undefined> {
    if (recorder === undefined) return undefined;
    const events = this.core.takeOutbox();
    try {
      return await recorder({
        call: { ...input, events },
        outcome: signal.outcome,
        actor: signal.actor,
        ...(signal.externalId !== undefined ? { externalId: signal.externalId } : {}),
        evidence: signal.evidence ?? {},
      });
    } catch (err) {
      this.core.requeue(events); // the activity may not have stored them
      throw err;
    }
  }
}
