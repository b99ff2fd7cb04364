import { GuardrailStopCodes } from '../guardrails/index.js';
import type { z } from 'zod';
import {
  ApproveSignalSchema,
  CancelRunSignalSchema,
  ConfirmSignalSchema,
  ProvideInputSignalSchema,
  ReconcileSignalSchema,
  RejectSignalSchema,
  type CancelRunSignal,
  type DecisionOutcome,
  type DecisionSignalName,
  type ReconcileSignal,
} from '../../contract/signals.js';
import type { DecidedAction, DecisionAuthority, Verdict } from '../authz/decision-authority.js';
import type { TokenDecision } from '../authz/decision-token.js';
import { PrincipalDirectory } from '../authz/principal-directory.js';
import type { PrincipalsSnapshot } from '../workflow/activity-interfaces.js';
import { addSeconds } from '../policy/index.js';
import { earliestExpiry } from '../policy/decision-time.js';
import type { RunCore } from './run-core.js';
import type { ConfirmRequest, HumanDecision } from './run-context.js';
import type { HumanRequest, PendingAction } from './pending-action.js';
import { RunStop } from './run-stop.js';
import { argsDigestOf } from './tool-pipeline.js';

type Mailbox =
  | { kind: 'decision'; decision: HumanDecision }
  | { kind: 'reconcile'; signal: ReconcileSignal }
  | { kind: 'input'; value: string; actor: string };

/** Most characters of a rejected signal's payload kept in its event (payloads are untrusted input). */
const MAX_REJECTED_PAYLOAD_CHARS = 2_000;
/**
 * Most `human.signal_rejected` events per wait: a flood of bad decisions cannot grow the outbox (and
 * the next activity's input) without limit. Beyond it refusals are counted, and the count is recorded
 * once when the wait ends (`human.signal_rejections_suppressed`).
 */
export const MAX_REFUSAL_EVENTS_PER_WAIT = 20;

/**
 * A run that checks signed decisions (docs/authorization.md): who decides, and how the registry is
 * loaded for each wait (a local activity whose result is recorded).
 */
export interface GateAuthorization {
  readonly authority: DecisionAuthority;
  loadPrincipals(knownDigest: string | undefined): Promise<PrincipalsSnapshot>;
}

const accepted = (actionId: string, principal?: string, approvals?: DecisionOutcome['approvals']) => ({
  accepted: true,
  code: 'decision.accepted',
  message: 'accepted',
  actionId,
  ...(principal !== undefined ? { principal } : {}),
  ...(approvals !== undefined ? { approvals } : {}),
});

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
  private last: DecisionOutcome | undefined;
  private refusalEvents = 0;
  private suppressed = 0;
  private refusedTotal = 0;
  /** Signed mode: the action waited on (with its arguments), and whether the customer must confirm it. */
  private waiting: { action: DecidedAction; customer: boolean; dispatch: boolean } | undefined;

  constructor(
    private readonly core: RunCore,
    private readonly approvalTimeoutSeconds: number,
    private readonly authz?: GateAuthorization,
  ) {}

  get cancelRequest(): CancelRunSignal | undefined {
    return this.cancel;
  }

  /** True when the run accepts signed decisions only. */
  get signed(): boolean {
    return this.authz !== undefined;
  }

  /** The run's user, when the run checks signed decisions and has one. */
  get requester(): string | undefined {
    return this.authz?.authority.requester;
  }

  /** Distinct principals who approved a tool call (signed runs). */
  approversOf(action: DecidedAction): readonly string[] {
    return this.authz?.authority.approversOf(action) ?? [];
  }

  /** Decisions refused since the run (this generation) started. */
  get refusals(): number {
    return this.refusedTotal;
  }

  private rejectSignal(
    signal: string,
    code: string,
    message: string,
    payload: unknown,
    principal?: string,
  ): void {
    const state = this.core.state;
    this.refusedTotal += 1;
    this.last = { accepted: false, code, message, ...(principal !== undefined ? { principal } : {}) };
    if (this.refusalEvents < MAX_REFUSAL_EVENTS_PER_WAIT) {
      this.refusalEvents += 1;
      this.core.emit('human.signal_rejected', {
        signal,
        code,
        message,
        pendingActionId: state.pendingAction?.actionId ?? null,
        ...(principal !== undefined ? { principal } : {}),
        payload: boundedPayload(payload),
      });
    } else {
      this.suppressed += 1;
    }
    // Visible at once in the `state` query (the event reaches the store with the next write).
    state.signalRejections = [
      ...(state.signalRejections ?? []),
      { signal, code, message: message.slice(0, 300), at: this.core.ports.now() },
    ].slice(-10);
    this.core.ports.publish(state);
  }

  /** Record, once, how many refusals were not recorded one by one. */
  private flushSuppressed(): void {
    if (this.suppressed > 0)
      this.core.emit('human.signal_rejections_suppressed', {
        count: this.suppressed,
        recorded: this.refusalEvents,
      });
    this.suppressed = 0;
    this.refusalEvents = 0;
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

  /**
   * Take a decision by name (a signal, or the `decide` update): the answer says whether it was
   * accepted and, if not, why. A refused decision changes nothing but the bounded refusal record.
   */
  receive(signal: DecisionSignalName, payload: unknown): DecisionOutcome {
    this.last = undefined;
    switch (signal) {
      case 'approve':
        this.onApprove(payload);
        break;
      case 'reject':
        this.onReject(payload);
        break;
      case 'confirm':
        this.onConfirm(payload);
        break;
      case 'reconcile':
        this.onReconcile(payload);
        break;
      case 'provideInput':
        this.onProvideInput(payload);
        break;
      case 'cancelRun':
        this.onCancel(payload);
        break;
    }
    return this.last ?? { accepted: false, code: 'signal.unknown', message: `unknown decision ${signal}` };
  }

  /** Signed mode: check a decision's token and the rules; refuse it (recorded) when either fails. */
  private verify(
    signal: string,
    decision: TokenDecision,
    payload: Readonly<Record<string, unknown>>,
    action: DecidedAction | 'cancel',
  ): Extract<Verdict, { ok: true }> | undefined {
    const authority = this.authz!.authority;
    const verdict = authority.check(decision, payload, action, Date.parse(this.core.ports.now()), {
      customerWait: this.waiting?.customer === true,
    });
    if (!verdict.ok) {
      this.rejectSignal(signal, verdict.code, verdict.message, payload, verdict.principal);
      return undefined;
    }
    authority.accept(verdict, decision, action, this.core.ports.now());
    return verdict;
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
    if (!this.authz) {
      this.mailbox = {
        kind: 'decision',
        decision: { decision: 'approved', actor: s.actor, reason: s.reason },
      };
      this.last = accepted(s.actionId);
      return;
    }
    const w = this.waiting!;
    const v = this.verify('approve', 'approve', s, w.action);
    if (!v) return;
    const authority = this.authz.authority;
    const have = authority.approversOf(w.action).length;
    const need = w.dispatch ? authority.requiredApprovals(w.action) : 1;
    this.core.emit('human.approval_recorded', {
      actionId: s.actionId,
      principal: v.principal.id,
      keyId: v.keyId,
      approvals: have,
      required: need,
    });
    this.last = accepted(s.actionId, v.principal.id, { have, need });
    if (have >= need)
      this.mailbox = {
        kind: 'decision',
        decision: { decision: 'approved', actor: v.principal.id, reason: s.reason },
      };
  }

  onReject(payload: unknown): void {
    const s = this.parse('reject', RejectSignalSchema, payload);
    if (!s || !this.pendingFor('reject', ['confirmation', 'human'], s.actionId, payload)) return;
    let actor = s.actor;
    if (this.authz) {
      const v = this.verify('reject', 'reject', s, this.waiting!.action);
      if (!v) return;
      actor = v.principal.id;
    }
    this.mailbox = {
      kind: 'decision',
      decision: { decision: 'rejected', actor, reason: s.reason, code: 'approval.rejected' },
    };
    this.last = accepted(s.actionId, this.authz ? actor : undefined);
  }

  /** A customer's confirmation (signed runs only): its own decision kind, never an approval. */
  onConfirm(payload: unknown): void {
    const s = this.parse('confirm', ConfirmSignalSchema, payload);
    if (!s) return;
    if (!this.authz) {
      this.rejectSignal(
        'confirm',
        'signal.not_supported',
        'this run takes approvals, not confirmations',
        payload,
      );
      return;
    }
    if (!this.pendingFor('confirm', ['confirmation', 'human'], s.actionId, payload)) return;
    const v = this.verify('confirm', 'confirm', s, this.waiting!.action);
    if (!v) return;
    this.mailbox = {
      kind: 'decision',
      decision: { decision: 'approved', actor: v.principal.id, reason: s.reason },
    };
    this.last = accepted(s.actionId, v.principal.id);
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
    if (this.authz) {
      const v = this.verify('reconcile', 'reconcile', s, this.waiting!.action);
      if (!v) return;
      this.mailbox = { kind: 'reconcile', signal: { ...s, actor: v.principal.id } };
      this.last = accepted(this.waiting!.action.actionId, v.principal.id);
      return;
    }
    this.mailbox = { kind: 'reconcile', signal: s };
    this.last = accepted(this.core.state.pendingAction?.actionId ?? '');
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
    let actor = s.actor;
    if (this.authz) {
      const v = this.verify('provideInput', 'input', s, this.waiting!.action);
      if (!v) return;
      actor = v.principal.id;
    }
    this.mailbox = { kind: 'input', value: s.value, actor };
    this.last = accepted(this.core.state.pendingAction?.actionId ?? '', this.authz ? actor : undefined);
  }

  onCancel(payload: unknown): void {
    const s = this.parse('cancelRun', CancelRunSignalSchema, payload);
    if (!s) return;
    if (this.cancel) {
      this.rejectSignal('cancelRun', 'signal.duplicate', 'cancellation already requested', payload);
      return;
    }
    if (this.authz) {
      const v = this.verify('cancelRun', 'cancel', s, 'cancel');
      if (!v) return;
      this.cancel = { ...s, actor: v.principal.id };
      this.last = accepted('cancel', v.principal.id);
      return;
    }
    this.cancel = s;
    this.last = accepted('cancel');
  }

  private nextActionId(suffix: string): string {
    this.actionCounter += 1;
    return `act-${this.core.state.nextSeq}-${this.actionCounter}${suffix ? `-${suffix}` : ''}`;
  }

  /**
   * Signed mode: load the principal registry for this wait (a local activity; its result is in the
   * history, so verification replays exactly). A changed registry is recorded as an event.
   */
  private async loadPrincipals(): Promise<void> {
    const authz = this.authz!;
    const known = authz.authority.registryDigest;
    const snapshot = await authz.loadPrincipals(known);
    if (snapshot.registry !== undefined && snapshot.digest !== known) {
      authz.authority.useDirectory(new PrincipalDirectory(snapshot.digest, snapshot.registry));
      this.core.emit('principals.loaded', {
        digest: snapshot.digest,
        principals: snapshot.registry.principals.length,
      });
    }
  }

  private async wait(
    action: PendingAction,
    status: 'awaiting_confirmation' | 'awaiting_human' | 'awaiting_input',
    waitingReason: string,
    request: HumanRequest | null,
  ): Promise<Mailbox | undefined> {
    const { state, ports } = this.core;
    if (this.authz) await this.loadPrincipals();
    this.mailbox = undefined;
    this.refusalEvents = 0;
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
    this.waiting = undefined;
    state.pendingAction = null;
    state.humanRequest = null;
    this.flushSuppressed();
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
    mode: { readonly customer?: boolean } = {},
  ): Promise<HumanDecision> {
    const { state, ports } = this.core;
    const timeout = addSeconds(ports.now(), this.approvalTimeoutSeconds);
    const expiresAt = earliestExpiry(timeout, notAfter) ?? timeout;
    let actionId: string;
    let boundDigest = argsDigest;
    if (this.authz) {
      // Signed runs bind a confirmation to its tool call too, so approvals of one call add up.
      boundDigest ??= request.action ? argsDigestOf(request.action.args) : undefined;
      actionId = this.authz.authority.nextActionId(
        mode.customer ? 'c' : 'a',
        request.action?.tool ?? kind,
        boundDigest ? boundDigest.slice(7, 19) : 'none',
      );
      this.waiting = {
        action: {
          actionId,
          tool: request.action?.tool,
          version: request.action?.version,
          argsDigest: boundDigest,
          args: request.action?.args,
        },
        customer: mode.customer === true,
        dispatch: argsDigest !== undefined,
      };
    } else {
      actionId = this.nextActionId(argsDigest ? argsDigest.slice(7, 19) : '');
    }
    const action: PendingAction = {
      actionId,
      kind,
      tool: request.action?.tool,
      version: request.action?.version,
      argsDigest: boundDigest,
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
      allowedDecisions: mode.customer ? ['confirm', 'reject'] : ['approve', 'reject'],
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
    this.core.emit('human.decided', {
      actionId,
      ...decision,
      ...(this.authz ? { verified: true, kind: mode.customer ? 'customer_confirmation' : 'approval' } : {}),
    });
    return decision;
  }

  /** Wait for a `reconcile` signal about invocation `seq` (unknown write outcome). */
  async awaitReconciliation(seq: number, tool: string, version: string): Promise<ReconcileSignal> {
    const actionId = this.authz
      ? this.authz.authority.nextActionId('r', tool, String(seq))
      : `reconcile-${seq}`;
    if (this.authz) this.waiting = { action: { actionId, tool, version }, customer: false, dispatch: false };
    const action: PendingAction = {
      actionId,
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
    const actionId = this.authz ? this.authz.authority.nextActionId('i', slot) : `input-${slot}`;
    if (this.authz) this.waiting = { action: { actionId }, customer: false, dispatch: false };
    const action: PendingAction = { actionId, kind: 'input', slot, expiresAt: null };
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
