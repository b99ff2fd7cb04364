import { GuardrailStopCodes } from '../guardrails/index.js';
import type { z } from 'zod';
import {
  ApproveSignalSchema,
  CancelRunSignalSchema,
  ConfirmSignalSchema,
  ProvideInputSignalSchema,
  ReconcileSignalSchema,
  RejectSignalSchema,
  RequestMoreInfoSignalSchema,
  type CancelRunSignal,
  type DecisionOutcome,
  type DecisionSignalName,
  type ReconcileSignal,
} from '../../contract/signals.js';
import type { DecidedAction, DecisionAuthority, Verdict } from '../authz/decision-authority.js';
import type { TokenDecision } from '../authz/decision-token.js';
import type { RunCore } from './run-core.js';
import { DECISION_PAYLOAD_BOUNDS, jsonBoundsProblem } from '../../contract/json-bounds.js';
import type { HumanDecision } from './run-context.js';
import type { PendingAction } from '../../contract/pending-action.js';
import { RefusalRecord } from './refusal-record.js';

/** What a wait receives: a decision, a reconciliation or an input value. */
export type Mailbox =
  | { kind: 'decision'; decision: HumanDecision }
  | { kind: 'reconcile'; signal: ReconcileSignal }
  | { kind: 'input'; value: string; actor: string }
  | { kind: 'more_info'; question: string; actor: string };

/** Signed runs: the action waited on (with its arguments), and whether the customer must confirm it. */
export interface Waiting {
  readonly action: DecidedAction;
  readonly customer: boolean;
  /** A dispatch gate: it waits for the distinct approvers the rules ask for. */
  readonly dispatch: boolean;
}

const accepted = (actionId: string, principal?: string, approvals?: DecisionOutcome['approvals']) => ({
  accepted: true,
  code: 'decision.accepted',
  message: 'accepted',
  actionId,
  ...(principal !== undefined ? { principal } : {}),
  ...(approvals !== undefined ? { approvals } : {}),
});

/**
 * Where decisions arrive (signals and the `decide` update): each is validated against the exact
 * pending action and, in signed runs, its token and the authorization rules are checked. An accepted
 * decision fills the mailbox the waiting gate reads; a refused one changes nothing but the bounded
 * {@link RefusalRecord}. Handlers run synchronously in the workflow (deterministic, no I/O).
 */
export class DecisionIntake {
  mailbox: Mailbox | undefined;
  cancel: CancelRunSignal | undefined;
  waiting: Waiting | undefined;
  readonly refusals: RefusalRecord;
  private last: DecisionOutcome | undefined;
  /** Checking only ({@link preview}): refusals are answered, not recorded; nothing is accepted. */
  private dry = false;

  constructor(
    private readonly core: RunCore,
    private readonly authority: DecisionAuthority | undefined,
  ) {
    this.refusals = new RefusalRecord(core, authority !== undefined);
  }

  private rejectSignal(
    signal: string,
    code: string,
    message: string,
    payload: unknown,
    principal?: string,
  ): void {
    this.last = this.dry
      ? { accepted: false, code, message, ...(principal !== undefined ? { principal } : {}) }
      : this.refusals.refuse(signal, code, message, payload, principal);
  }

  /**
   * Would {@link receive} accept this decision now? The same checks (bounds, schema, the pending
   * action, and in signed runs the token, its binding and the authorization rules) with nothing
   * recorded, spent or delivered: for the `decide` update's validator, so a refused decision never
   * enters the run's history or uses its update budget. An `accepted` answer may still be refused by
   * `receive` for what only taking it checks (an input guardrail on the value, a second approval of
   * the same call arriving first).
   */
  preview(signal: DecisionSignalName, payload: unknown): DecisionOutcome {
    this.dry = true;
    const mailbox = this.mailbox;
    const cancel = this.cancel;
    try {
      return this.receive(signal, payload);
    } finally {
      this.dry = false;
      this.mailbox = mailbox;
      this.cancel = cancel;
    }
  }

  /** In a preview, stop before anything is taken: answer what taking it would answer first. */
  private previewed(outcome: DecisionOutcome): boolean {
    if (!this.dry) return false;
    this.last = outcome;
    return true;
  }

  private parse<T>(signal: string, schema: z.ZodType<T>, payload: unknown): T | undefined {
    // Before anything reads it (the schema, the payload digest of its token): a payload too large or
    // too deep is refused, never serialized. Asked only then, so older histories replay unchanged.
    const problem = jsonBoundsProblem(payload, DECISION_PAYLOAD_BOUNDS);
    // A preview refuses it without asking the patch: nothing of a refused preview reaches history.
    if (problem !== undefined && (this.dry || this.core.features.on('boundedValues'))) {
      this.rejectSignal(signal, 'signal.too_large', `the payload ${problem}`, payload);
      return undefined;
    }
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
      case 'requestMoreInfo':
        this.onRequestMoreInfo(payload);
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
    const authority = this.authority!;
    const verdict = authority.check(decision, payload, action, Date.parse(this.core.ports.now()), {
      customerWait: this.waiting?.customer === true,
    });
    if (!verdict.ok) {
      this.rejectSignal(signal, verdict.code, verdict.message, payload, verdict.principal);
      return undefined;
    }
    if (!this.dry) authority.accept(verdict, decision, action, this.core.ports.now());
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
    if (!this.authority) {
      if (this.previewed(accepted(s.actionId))) return;
      this.mailbox = {
        kind: 'decision',
        decision: { decision: 'approved', actor: s.actor, reason: s.reason },
      };
      this.last = accepted(s.actionId);
      return;
    }
    const w = this.waiting!;
    const v = this.verify('approve', 'approve', s, w.action);
    if (!v || this.previewed(accepted(s.actionId, v.principal.id))) return;
    const authority = this.authority;
    const have = authority.approversOf(w.action).length;
    const need = w.dispatch ? authority.requiredApprovals(w.action) : 1;
    this.core.emit('human.approval_recorded', {
      actionId: s.actionId,
      principal: v.principal.id,
      keyId: v.keyId,
      ...(v.via !== undefined ? { via: v.via } : {}),
      approvals: have,
      required: need,
      registryDigest: authority.registryDigest ?? null,
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
    if (this.authority) {
      const v = this.verify('reject', 'reject', s, this.waiting!.action);
      if (!v) return;
      actor = v.principal.id;
    }
    if (this.previewed(accepted(s.actionId, this.authority ? actor : undefined))) return;
    this.mailbox = {
      kind: 'decision',
      decision: { decision: 'rejected', actor, reason: s.reason, code: 'approval.rejected' },
    };
    this.last = accepted(s.actionId, this.authority ? actor : undefined);
  }

  /** A customer's confirmation (signed runs only): its own decision kind, never an approval. */
  onConfirm(payload: unknown): void {
    const s = this.parse('confirm', ConfirmSignalSchema, payload);
    if (!s) return;
    if (!this.authority) {
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
    if (!v || this.previewed(accepted(s.actionId, v.principal.id))) return;
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
    if (this.authority) {
      const v = this.verify('reconcile', 'reconcile', s, this.waiting!.action);
      if (!v || this.previewed(accepted(this.waiting!.action.actionId, v.principal.id))) return;
      this.mailbox = { kind: 'reconcile', signal: { ...s, actor: v.principal.id } };
      this.last = accepted(this.waiting!.action.actionId, v.principal.id);
      return;
    }
    if (this.previewed(accepted(this.core.state.pendingAction?.actionId ?? ''))) return;
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
    let actor = s.actor;
    if (this.authority) {
      const v = this.verify('provideInput', 'input', s, this.waiting!.action);
      if (!v) return;
      actor = v.principal.id;
    }
    const pendingId = this.core.state.pendingAction?.actionId ?? '';
    if (this.previewed(accepted(pendingId, this.authority ? actor : undefined))) return;
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
    this.mailbox = { kind: 'input', value: s.value, actor };
    this.last = accepted(this.core.state.pendingAction?.actionId ?? '', this.authority ? actor : undefined);
  }

  /**
   * An approver's question instead of a decision (`agent-run-request-more-info-v1`): checked, signed
   * and authorized like a rejection (never by a customer, never at a customer confirmation); the gate
   * then asks the requester (more-info.ts). Refused with `signal.not_supported` in a run without it.
   */
  onRequestMoreInfo(payload: unknown): void {
    const s = this.parse('requestMoreInfo', RequestMoreInfoSignalSchema, payload);
    if (!s) return;
    if (!this.core.features.on('requestMoreInfo')) {
      const message = 'this run takes no requests for more information';
      this.rejectSignal('requestMoreInfo', 'signal.not_supported', message, payload);
      return;
    }
    if (!this.pendingFor('requestMoreInfo', ['confirmation', 'human'], s.actionId, payload)) return;
    let actor = s.actor;
    if (this.authority) {
      const v = this.verify('requestMoreInfo', 'request_more_info', s, this.waiting!.action);
      if (!v) return;
      actor = v.principal.id;
    }
    if (this.previewed(accepted(s.actionId, this.authority ? actor : undefined))) return;
    this.mailbox = { kind: 'more_info', question: s.question, actor };
    this.last = accepted(s.actionId, this.authority ? actor : undefined);
  }

  onCancel(payload: unknown): void {
    const s = this.parse('cancelRun', CancelRunSignalSchema, payload);
    if (!s) return;
    if (this.cancel) {
      this.rejectSignal('cancelRun', 'signal.duplicate', 'cancellation already requested', payload);
      return;
    }
    if (this.authority) {
      const v = this.verify('cancelRun', 'cancel', s, 'cancel');
      if (!v || this.previewed(accepted('cancel', v.principal.id))) return;
      this.cancel = { ...s, actor: v.principal.id };
      this.last = accepted('cancel', v.principal.id);
      return;
    }
    if (this.previewed(accepted('cancel'))) return;
    this.cancel = s;
    this.last = accepted('cancel');
  }
}
