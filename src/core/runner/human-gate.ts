import { GuardrailStopCodes } from '../guardrails/index.js';
import type { z } from 'zod';
import {
  ApproveSignalSchema,
  CancelRunSignalSchema,
  ProvideInputSignalSchema,
  ReconcileSignalSchema,
  RejectSignalSchema,
  type CancelRunSignal,
  type ReconcileSignal,
} from '../../contract/signals.js';
import { addSeconds } from '../policy/index.js';
import { earliestExpiry } from '../policy/decision-time.js';
import type { RunCore } from './run-core.js';
import type { ConfirmRequest, HumanDecision } from './run-context.js';
import type { HumanRequest, PendingAction } from './pending-action.js';
import { RunStop } from './run-stop.js';

type Mailbox =
  | { kind: 'decision'; decision: HumanDecision }
  | { kind: 'reconcile'; signal: ReconcileSignal }
  | { kind: 'input'; value: string; actor: string };

/** Most characters of a rejected signal's payload kept in its event (payloads are untrusted input). */
const MAX_REJECTED_PAYLOAD_CHARS = 2_000;

/** The payload of a rejected signal as JSON data of bounded size (a preview when too large). */
function boundedPayload(payload: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(payload);
  } catch {
    text = undefined;
  }
  if (text === undefined) return { unserializable: typeof payload };
  if (text.length <= MAX_REJECTED_PAYLOAD_CHARS) return JSON.parse(text) as unknown;
  return { truncated: true, preview: text.slice(0, MAX_REJECTED_PAYLOAD_CHARS) };
}

/**
 * Human-in-the-loop: the pending action, the signals that settle it, expiry. Every signal is
 * validated against the exact pending action; a malformed, stale, forged or repeated one changes
 * nothing and is recorded as a `human.signal_rejected` event.
 */
export class HumanGate {
  private mailbox: Mailbox | undefined;
  private cancel: CancelRunSignal | undefined;
  private actionCounter = 0;

  constructor(
    private readonly core: RunCore,
    private readonly approvalTimeoutSeconds: number,
  ) {}

  get cancelRequest(): CancelRunSignal | undefined {
    return this.cancel;
  }

  private rejectSignal(signal: string, code: string, message: string, payload: unknown): void {
    const state = this.core.state;
    this.core.emit('human.signal_rejected', {
      signal,
      code,
      message,
      pendingActionId: state.pendingAction?.actionId ?? null,
      payload: boundedPayload(payload),
    });
    // Visible at once in the `state` query (the event reaches the store with the next write).
    state.signalRejections = [
      ...(state.signalRejections ?? []),
      { signal, code, message: message.slice(0, 300), at: this.core.ports.now() },
    ].slice(-10);
    this.core.ports.publish(state);
  }

  private parse<T>(signal: string, schema: z.ZodType<T>, payload: unknown): T | undefined {
    const parsed = schema.safeParse(payload);
    if (parsed.success) return parsed.data;
    const first = parsed.error.issues[0];
    this.rejectSignal(
      signal,
      'signal.malformed',
      `${first?.path.join('.') || '(payload)'}: ${first?.message ?? 'invalid'}`,
      payload,
    );
    return undefined;
  }

  private pendingFor(
    signal: string,
    kinds: PendingAction['kind'][],
    actionId: string | undefined,
    payload: unknown,
  ): boolean {
    const pending = this.core.state.pendingAction;
    if (this.core.state.status === 'cancelled' || !pending || !kinds.includes(pending.kind)) {
      this.rejectSignal(signal, 'signal.no_pending_action', 'nothing is waiting for this signal', payload);
      return false;
    }
    if (actionId !== undefined && pending.actionId !== actionId) {
      this.rejectSignal(
        signal,
        'signal.action_mismatch',
        `pending action is ${pending.actionId}, not ${actionId}`,
        payload,
      );
      return false;
    }
    if (this.mailbox !== undefined) {
      this.rejectSignal(
        signal,
        'signal.duplicate',
        'a decision for this action was already received',
        payload,
      );
      return false;
    }
    return true;
  }

  onApprove(payload: unknown): void {
    const s = this.parse('approve', ApproveSignalSchema, payload);
    if (!s || !this.pendingFor('approve', ['confirmation', 'human'], s.actionId, payload)) return;
    this.mailbox = { kind: 'decision', decision: { decision: 'approved', actor: s.actor, reason: s.reason } };
  }

  onReject(payload: unknown): void {
    const s = this.parse('reject', RejectSignalSchema, payload);
    if (!s || !this.pendingFor('reject', ['confirmation', 'human'], s.actionId, payload)) return;
    this.mailbox = {
      kind: 'decision',
      decision: { decision: 'rejected', actor: s.actor, reason: s.reason, code: 'approval.rejected' },
    };
  }

  onReconcile(payload: unknown): void {
    const s = this.parse('reconcile', ReconcileSignalSchema, payload);
    if (!s || !this.pendingFor('reconcile', ['reconcile'], undefined, payload)) return;
    if (this.core.state.pendingAction?.invocationSeq !== s.invocationSeq) {
      this.rejectSignal(
        'reconcile',
        'signal.action_mismatch',
        `invocation ${s.invocationSeq} is not the one awaiting reconciliation (${this.core.state.pendingAction?.invocationSeq})`,
        payload,
      );
      return;
    }
    this.mailbox = { kind: 'reconcile', signal: s };
  }

  onProvideInput(payload: unknown): void {
    const s = this.parse('provideInput', ProvideInputSignalSchema, payload);
    if (!s || !this.pendingFor('provideInput', ['input'], undefined, payload)) return;
    if (this.core.state.pendingAction?.slot !== s.slot) {
      this.rejectSignal(
        'provideInput',
        'signal.action_mismatch',
        `waiting for slot ${this.core.state.pendingAction?.slot}`,
        payload,
      );
      return;
    }
    const guard = this.core.guardInput(`provideInput:${s.slot}`, s.value);
    if (guard?.verdict === 'block') {
      this.rejectSignal(
        'provideInput',
        GuardrailStopCodes.inputBlocked,
        `input guardrail: ${guard.reasonCodes.join(', ')}`,
        {
          slot: s.slot,
          actor: s.actor,
        },
      );
      return;
    }
    this.mailbox = { kind: 'input', value: s.value, actor: s.actor };
  }

  onCancel(payload: unknown): void {
    const s = this.parse('cancelRun', CancelRunSignalSchema, payload);
    if (!s) return;
    if (this.cancel) {
      this.rejectSignal('cancelRun', 'signal.duplicate', 'cancellation already requested', payload);
      return;
    }
    this.cancel = s;
  }

  private nextActionId(suffix: string): string {
    this.actionCounter += 1;
    return `act-${this.core.state.nextSeq}-${this.actionCounter}${suffix ? `-${suffix}` : ''}`;
  }

  private async wait(
    action: PendingAction,
    status: 'awaiting_confirmation' | 'awaiting_human' | 'awaiting_input',
    waitingReason: string,
    request: HumanRequest | null,
  ): Promise<Mailbox | undefined> {
    const { state, ports } = this.core;
    this.mailbox = undefined;
    state.pendingAction = action;
    state.humanRequest = request;
    this.core.transition(status, { waitingReason });
    this.core.emit('human.requested', { action, request });
    this.core.emit('checkpoint.saved', { reason: 'before_pause', stateVersion: state.stateVersion });
    await ports.flushEvents(this.core.takeOutbox());
    const timeoutMs =
      action.expiresAt === null
        ? undefined
        : Math.max(0, Date.parse(action.expiresAt) - Date.parse(ports.now()));
    await ports.waitUntil(() => this.mailbox !== undefined || this.cancel !== undefined, timeoutMs);
    const received = this.mailbox;
    this.mailbox = undefined;
    state.pendingAction = null;
    state.humanRequest = null;
    if (this.cancel) {
      this.core.emit('human.decided', {
        actionId: action.actionId,
        decision: 'cancelled',
        actor: this.cancel.actor,
      });
      throw new RunStop('cancelled', {
        code: 'run.cancelled',
        message: `cancelled by ${this.cancel.actor}: ${this.cancel.reason}`,
      });
    }
    this.core.transition('running', { waitingReason: null });
    return received;
  }

  /**
   * Ask for a confirmation or a human decision bound to `request.action` (tool, version, argument
   * digest). Resolves with the decision; on expiry, a rejection with code `approval.expired`. The
   * request expires after the approval timeout, or at `notAfter` (the policy decision's own expiry)
   * when that is earlier.
   * @throws RunStop(cancelled) when the run is cancelled while waiting.
   */
  async decide(
    kind: 'confirmation' | 'human',
    request: ConfirmRequest,
    argsDigest?: string,
    obligations?: readonly string[],
    notAfter?: string,
  ): Promise<HumanDecision> {
    const { state, ports } = this.core;
    const timeout = addSeconds(ports.now(), this.approvalTimeoutSeconds);
    const expiresAt = earliestExpiry(timeout, notAfter) ?? timeout;
    const actionId = this.nextActionId(argsDigest ? argsDigest.slice(7, 19) : '');
    const action: PendingAction = {
      actionId,
      kind,
      tool: request.action?.tool,
      version: request.action?.version,
      argsDigest,
      obligations,
      expiresAt,
    };
    const humanRequest: HumanRequest = {
      runId: state.runId,
      decisionType: request.decisionType,
      requestSummary: request.summary,
      verifiedFacts: request.verifiedFacts ?? [],
      policyEvidence: request.policyEvidence ?? [],
      proposedAction: `action://${state.runId}/${actionId}`,
      riskReasons: request.riskReasons ?? [],
      allowedDecisions: ['approve', 'reject'],
      expiresAt,
    };
    const status = kind === 'confirmation' ? 'awaiting_confirmation' : 'awaiting_human';
    const received = await this.wait(
      action,
      status,
      kind === 'confirmation' ? 'confirmation_required' : 'human_decision_required',
      humanRequest,
    );
    const decision: HumanDecision =
      received?.kind === 'decision'
        ? received.decision
        : {
            decision: 'rejected',
            actor: 'system',
            reason: 'the approval request expired',
            code: 'approval.expired',
          };
    this.core.emit('human.decided', { actionId, ...decision });
    return decision;
  }

  /** Wait for a `reconcile` signal about invocation `seq` (unknown write outcome). */
  async awaitReconciliation(seq: number, tool: string, version: string): Promise<ReconcileSignal> {
    const action: PendingAction = {
      actionId: `reconcile-${seq}`,
      kind: 'reconcile',
      invocationSeq: seq,
      tool,
      version,
      expiresAt: null,
    };
    const request: HumanRequest = {
      runId: this.core.state.runId,
      decisionType: 'unknown_write_outcome',
      requestSummary: `${tool}@${version} #${seq} may or may not have taken effect; check the external system and send a reconcile signal`,
      verifiedFacts: [],
      policyEvidence: [],
      proposedAction: `invocation://${this.core.state.runId}/${seq}`,
      riskReasons: ['write_outcome_unknown'],
      allowedDecisions: ['succeeded', 'failed', 'not_applied'],
      expiresAt: '',
    };
    const received = await this.wait(action, 'awaiting_human', 'unknown_write_outcome', request);
    if (received?.kind !== 'reconcile') throw new Error('reconciliation wait ended without a signal');
    this.core.emit('human.decided', { actionId: action.actionId, ...received.signal });
    return received.signal;
  }

  /** Wait for a `provideInput` signal for `slot`. */
  async awaitInput(slot: string, prompt: string): Promise<string> {
    const action: PendingAction = { actionId: `input-${slot}`, kind: 'input', slot, expiresAt: null };
    const request: HumanRequest = {
      runId: this.core.state.runId,
      decisionType: 'input_required',
      requestSummary: prompt,
      verifiedFacts: [],
      policyEvidence: [],
      proposedAction: `slot://${this.core.state.runId}/${slot}`,
      riskReasons: [],
      allowedDecisions: ['provideInput'],
      expiresAt: '',
    };
    const received = await this.wait(action, 'awaiting_input', `input_required:${slot}`, request);
    if (received?.kind !== 'input') throw new Error('input wait ended without a value');
    this.core.emit('human.decided', { actionId: action.actionId, slot, actor: received.actor });
    return received.value;
  }
}
