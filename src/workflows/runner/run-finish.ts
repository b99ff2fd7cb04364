import type { EvaluatorRegistry } from '../completion/index.js';
import {
  GuardrailEventTypes,
  GuardrailStopCodes,
  outputCheckedEvent,
  type OutputGuardrail,
  type OutputGuardrailResult,
} from '../guardrails/index.js';
import { checkStep } from './budget.js';
import {
  MAX_OUTPUT_RETRIES,
  type BlockedOutputFeedback,
  type Profile,
  type ProfileResult,
} from './profile.js';
import type { RunCore } from './run-core.js';
import type { TerminalReason } from './run-state.js';
import { RunStop, stopIfExhausted } from './run-stop.js';
import { composeDeliveredAnswer, deliveredReason, deliveredWrites } from './delivered-outcome.js';

export interface RunFinishOptions {
  readonly evaluators: EvaluatorRegistry;
  /** The output guardrail; absent for runs that predate it (patch) or hosts without one. */
  readonly outputGuardrail?: OutputGuardrail;
}

/**
 * The end of a successful profile run: the output guardrail on the composed response (masking,
 * rewriting, or blocking it), composing again when the profile chooses to retry a blocked output,
 * and the completion contract that decides whether the run `succeeded`. Failures end the run through
 * {@link RunStop} (`guardrail.output_blocked`, `completion.not_satisfied`, a budget).
 */
export class RunFinish {
  constructor(
    private readonly core: RunCore,
    private readonly options: RunFinishOptions,
  ) {}

  /**
   * Run the output guardrail on `state.output` (when the run has one), emit `guardrail.output_checked`
   * and put the output that may leave (masked or rewritten) in its place. Returns the result when it
   * blocked, undefined otherwise.
   */
  guardOutput(): OutputGuardrailResult | undefined {
    const s = this.core.state;
    const guard = this.options.outputGuardrail?.check({
      output: s.output,
      artifacts: s.artifacts,
      invocations: s.invocations,
      obligations: s.obligations,
      exemptTrustedIdentifiers: () => this.core.features.on('trustedIdentifiers'),
      limitText: () => this.core.features.on('outputTextLimit'),
    });
    if (!guard) return undefined;
    const e = outputCheckedEvent(guard);
    this.core.emit(e.type, e.data, e.classification);
    this.core.recordFindings('output', 'output', guard.findings);
    s.output = guard.output;
    return guard.verdict === 'block' ? guard : undefined;
  }

  /**
   * After a blocked output: recompose when the profile retries and retries remain (the retry is a
   * step, and the `outputRetry` feature is on), else stop the run `failed` / `guardrail.output_blocked`.
   */
  async retryBlocked(
    profile: Profile,
    result: ProfileResult,
    guard: OutputGuardrailResult,
  ): Promise<ProfileResult> {
    const s = this.core.state;
    const choice = profile.onBlockedOutput;
    const retries = choice?.action === 'retry' ? Math.min(choice.maxRetries, MAX_OUTPUT_RETRIES) : 0;
    const stop = new RunStop('failed', {
      code: GuardrailStopCodes.outputBlocked,
      message: `the output guardrail blocked the response: ${guard.reasonCodes.join(', ')}`,
      details:
        retries > 0
          ? { reasonCodes: guard.reasonCodes, retries: s.outputRetries, maxRetries: retries }
          : { reasonCodes: guard.reasonCodes },
    });
    if (retries === 0 || !result.recompose || s.outputRetries >= retries) throw stop;
    if (!this.core.features.on('outputRetry')) throw stop;
    stopIfExhausted(checkStep(s.limits, s.budget), (t, d) => this.core.emit(t, d));
    s.budget.steps += 1;
    s.outputRetries += 1;
    const feedback: BlockedOutputFeedback = {
      attempt: s.outputRetries,
      reasonCodes: [...guard.reasonCodes],
      findings: guard.findings
        .filter((f) => f.action === 'block')
        .map((f) => ({ code: f.code, ruleId: f.ruleId, path: f.path })),
    };
    this.core.emit(GuardrailEventTypes.outputRetried, { ...feedback, maxRetries: retries });
    return result.recompose(feedback);
  }

  /**
   * A budget ended the run (`reason`): when writes took effect and the run takes the
   * `deliveredOutcome` feature, compose the customer's answer (the profile's `deliveredAnswer`, else
   * the runner's summary; no model or tool call), put it through the output guardrail (a blocked
   * answer leaves the output `null`), emit `run.outcome_delivered` and return the reason with
   * `outcome: 'delivered'` and the applied writes. Otherwise returns `reason` unchanged.
   * Failure semantics: never throws.
   */
  deliver(profile: Profile, task: Readonly<Record<string, unknown>>, reason: TerminalReason): TerminalReason {
    const s = this.core.state;
    const writes = deliveredWrites(s.invocations);
    if (writes.length === 0 || !this.core.features.on('deliveredOutcome')) return reason;
    const { code, message } = reason;
    const outcome = { reason: { code, message }, writes, task, resume: s.profileState };
    const { answer, composedBy } = composeDeliveredAnswer(profile, outcome);
    s.output = answer;
    const blocked = this.guardOutput() !== undefined;
    if (blocked) s.output = null;
    this.core.emit('run.outcome_delivered', {
      code,
      delivered: writes,
      composedBy,
      answer: blocked ? 'blocked' : 'composed',
    });
    return deliveredReason(reason, writes);
  }

  complete(profile: Profile): void {
    const s = this.core.state;
    const verdict = this.options.evaluators.evaluateContract(profile.completion, {
      finalOutput: s.output,
      artifacts: s.artifacts,
      invocations: s.invocations,
    });
    this.core.emit('eval.completed', { ...verdict });
    if (!verdict.passed) {
      throw new RunStop('failed', {
        code: 'completion.not_satisfied',
        message: `completion ${verdict.evaluator} not satisfied: ${verdict.summary}`,
        details: { reasonCodes: verdict.reasonCodes },
      });
    }
    this.core.emit('checkpoint.saved', { reason: 'before_final_response', stateVersion: s.stateVersion });
    this.core.transition('succeeded', { waitingReason: null });
    // The response that leaves the run (after the output guardrail's masking), for the event record
    // and its public projection.
    this.core.emit('run.completed', {
      status: 'succeeded',
      evaluator: verdict.evaluator,
      evidence: verdict.evidenceArtifactIds,
      output: s.output,
      budget: { ...s.budget },
    });
  }
}
