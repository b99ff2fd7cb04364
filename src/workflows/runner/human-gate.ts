import type {
  CancelRunSignal,
  DecisionOutcome,
  DecisionSignalName,
  ReconcileSignal,
} from '../../contract/signals.js';
import type { DecidedAction, DecisionAuthority } from '../authz/decision-authority.js';
import type { PrincipalsSnapshot } from '../../contract/activity-interfaces.js';
import { addSeconds } from '../policy/index.js';
import { earliestExpiry } from '../policy/decision-time.js';
import { carriedWaitOf, type CarriedWait } from './carried-wait.js';
import { DecisionIntake } from './decision-intake.js';
import { askRequester, withAnswer } from './more-info.js';
import { HumanWait } from './human-wait.js';
import { decisionRequest, type NoEffectQuestion } from './human-requests.js';
import type { GateParts } from './gate-parts.js';
import { awaitInput } from './input-wait.js';
import { awaitReconciliation } from './reconcile-wait.js';
import type { RunCore } from './run-core.js';
import type { ConfirmRequest, HumanDecision, WaitOptions } from './run-context.js';
import type { HumanRequest, PendingAction } from '../../contract/pending-action.js';
import { argsDigestOf } from './args-digest.js';

export { MAX_REFUSAL_EVENTS_PER_WAIT } from './refusal-record.js';

/**
 * A run that checks signed decisions (docs/authorization.md): who decides, and how the registry is
 * loaded for each wait (a local activity whose result is recorded).
 */
export interface GateAuthorization {
  readonly authority: DecisionAuthority;
  loadPrincipals(knownDigest: string | undefined): Promise<PrincipalsSnapshot>;
}

/**
 * Human-in-the-loop: the pending action, the waits and their expiry. Decisions arrive through the
 * {@link DecisionIntake} (signals and the `decide` update); a malformed, stale, forged, unsigned or
 * unauthorized one changes nothing and is recorded, bounded.
 */
export class HumanGate {
  private readonly intake: DecisionIntake;
  private readonly humanWait: HumanWait;
  private readonly parts: GateParts;
  private actionCounter = 0;
  /**
   * This generation continued a wait (the run state names its pending action): the first wait the
   * profile asks for takes it up again, with the same action id and expiry.
   */
  private continuing: boolean;

  /**
   * @param carried what the previous generation's gate handed over when it continued as new in the
   *   middle of a wait (see {@link CarriedWait}); absent otherwise.
   */
  constructor(
    private readonly core: RunCore,
    private readonly approvalTimeoutSeconds: number,
    private readonly authz?: GateAuthorization,
    carried?: CarriedWait,
  ) {
    this.intake = new DecisionIntake(core, authz?.authority);
    this.intake.waiting = carried?.waiting;
    this.intake.mailbox = carried?.mailbox;
    this.intake.cancel = carried?.cancel;
    this.humanWait = new HumanWait(core, this.intake, authz);
    this.parts = {
      core,
      intake: this.intake,
      humanWait: this.humanWait,
      authority: authz?.authority,
      timeoutSeconds: approvalTimeoutSeconds,
    };
    this.continuing = core.state.pendingAction !== null;
  }

  /**
   * What the next generation's gate needs when the run continues as new now: the signed wait, a
   * decision or a cancellation accepted but not yet taken. Undefined when there is none.
   */
  carry(): CarriedWait | undefined {
    return carriedWaitOf({
      waiting: this.core.state.pendingAction !== null ? this.intake.waiting : undefined,
      mailbox: this.intake.mailbox,
      cancel: this.intake.cancel,
    });
  }

  /**
   * This generation ends (continue-as-new): the refusals not recorded one by one since the last wait
   * are counted in an event now, so the count goes to the next generation with the events it carries.
   */
  recordRefusalCount(): void {
    this.intake.refusals.endWait();
  }

  /**
   * The wait this generation continues, when the profile asks for the same one (same kind and
   * subject): its action and request as the previous generation recorded them. Asked once, by the
   * first wait of a generation. A different wait drops the carried one (the run leaves the wait).
   */
  private continuedWait(
    kind: PendingAction['kind'],
    same: (pending: PendingAction) => boolean,
  ): { action: PendingAction; request: HumanRequest } | undefined {
    if (!this.continuing) return undefined;
    this.continuing = false;
    const { state } = this.core;
    const action = state.pendingAction;
    const request = state.humanRequest;
    if (action !== null && request !== null && action.kind === kind && same(action))
      return { action, request };
    state.pendingAction = null;
    state.humanRequest = null;
    this.intake.waiting = undefined;
    this.intake.mailbox = undefined;
    if (state.status !== 'running') this.core.transition('running', { waitingReason: null });
    return undefined;
  }

  get cancelRequest(): CancelRunSignal | undefined {
    return this.intake.cancel;
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

  /** Signed runs: the call was dispatched; its approvals are used up (see DecisionAuthority.consume). */
  consumeApprovals(action: DecidedAction): void {
    this.authz?.authority.consume(action);
  }

  /**
   * The arguments of the tool call the run waits for a decision on (signed runs), for the `state`
   * view: the person deciding sees what they approve. Undefined when nothing waits or the wait binds
   * no call.
   */
  get pendingArguments(): Readonly<Record<string, unknown>> | undefined {
    return this.core.state.pendingAction !== null ? this.intake.waiting?.action.args : undefined;
  }

  /** Decisions refused since the run (this generation) started. */
  get refusals(): number {
    return this.intake.refusals.count;
  }

  /** Take a decision by name (a signal or the `decide` update); see {@link DecisionIntake.receive}. */
  receive(signal: DecisionSignalName, payload: unknown): DecisionOutcome {
    return this.intake.receive(signal, payload);
  }

  /** Would {@link receive} take it? Nothing recorded or taken; see {@link DecisionIntake.preview}. */
  preview(signal: DecisionSignalName, payload: unknown): DecisionOutcome {
    return this.intake.preview(signal, payload);
  }

  private nextActionId(suffix: string): string {
    this.actionCounter += 1;
    return `act-${this.core.state.nextSeq}-${this.actionCounter}${suffix ? `-${suffix}` : ''}`;
  }

  /**
   * Ask for a confirmation or a human decision bound to `request.action` (tool, version, argument
   * digest). Resolves with the decision; on expiry, a rejection with code `approval.expired`. An
   * approver's question (`requestMoreInfo`) goes to the requester (more-info.ts), then the same action
   * is asked again, with the same expiry. The
   * request expires after the approval timeout, or at `notAfter` (the policy decision's own expiry)
   * when that is earlier. A generation that continued this wait takes it up with the same action.
   * @throws RunStop(cancelled) when the run is cancelled while waiting; ContinueAsNewRequested or
   *   RunStop(failed, `run.history_limit`) when the history reaches its bound (see `HumanWait.wait`).
   */
  async decide(
    kind: 'confirmation' | 'human',
    request: ConfirmRequest,
    argsDigest?: string,
    obligations?: readonly string[],
    notAfter?: string,
    mode: { readonly customer?: boolean } = {},
    options: WaitOptions = {},
  ): Promise<HumanDecision> {
    const continued = this.continuedWait(
      kind,
      (p) => p.tool === request.action?.tool && p.version === request.action?.version,
    );
    const { action, request: humanRequest } =
      continued ?? this.decisionWait(kind, request, argsDigest, obligations, notAfter, mode);
    const actionId = action.actionId;
    const boundDigest = action.argsDigest;
    const status = kind === 'confirmation' ? 'awaiting_confirmation' : 'awaiting_human';
    const waitingReason = kind === 'confirmation' ? 'confirmation_required' : 'human_decision_required';
    const signedWait = this.intake.waiting;
    let received = await this.humanWait.wait(action, status, waitingReason, humanRequest, {
      ...options,
      continued: continued !== undefined,
    });
    // An approver asked the requester a question: the answer comes back for a decision, never as one.
    while (received?.kind === 'more_info') {
      const answer = await askRequester(this.parts, action, received, options);
      if (answer === undefined) {
        received = undefined;
        break;
      }
      this.intake.waiting = signedWait;
      received = await this.humanWait.wait(
        action,
        status,
        waitingReason,
        withAnswer(humanRequest, answer),
        options,
      );
    }
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
      ...(this.authz
        ? {
            verified: true,
            kind: mode.customer ? 'customer_confirmation' : 'approval',
            registryDigest: this.authz.authority.registryDigest ?? null,
          }
        : {}),
    });
    // A rejected or expired decision ends the approvals of its call: a new proposal starts over.
    if (this.authz && decision.decision === 'rejected' && boundDigest !== undefined)
      this.authz.authority.consume({
        actionId,
        tool: request.action?.tool,
        version: request.action?.version,
        argsDigest: boundDigest,
      });
    return decision;
  }

  /** A new decision wait: its action id, expiry and request (and, signed, what it is bound to). */
  private decisionWait(
    kind: 'confirmation' | 'human',
    request: ConfirmRequest,
    argsDigest: string | undefined,
    obligations: readonly string[] | undefined,
    notAfter: string | undefined,
    mode: { readonly customer?: boolean },
  ): { action: PendingAction; request: HumanRequest } {
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
      this.intake.waiting = {
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
    const moreInfo = mode.customer !== true && this.core.features.on('requestMoreInfo');
    const humanRequest = decisionRequest(
      state.runId,
      actionId,
      request,
      expiresAt,
      mode.customer === true,
      moreInfo,
    );
    return { action, request: humanRequest };
  }

  /** Wait for a `reconcile` signal about invocation `seq`; see reconcile-wait.ts (expiry escalates). */
  awaitReconciliation(
    seq: number,
    tool: string,
    version: string,
    noEffect?: NoEffectQuestion,
  ): Promise<ReconcileSignal> {
    return awaitReconciliation(this.parts, seq, tool, version, noEffect);
  }

  /** True while the run waits for a person to settle a write whose outcome is unknown. */
  get reconciling(): boolean {
    return this.core.state.pendingAction?.kind === 'reconcile';
  }

  /**
   * The run's wall-clock deadline passed during a reconciliation wait. An unresolved write is never
   * dropped: the wait goes on, escalated. `human.escalated` is recorded (and stored at once), the
   * human request says the answer is overdue (`riskReasons` gains `deadline_passed`), and the waiting
   * reason, which is the `AgentWaitingReason` search attribute, becomes `unknown_write_outcome_overdue`
   * so operators can filter for it. Does nothing when no reconciliation is pending.
   */
  async escalateReconciliation(deadlineSeconds: number): Promise<void> {
    const { state, ports } = this.core;
    const action = state.pendingAction;
    const request = state.humanRequest;
    if (action?.kind !== 'reconcile' || request === null) return;
    state.humanRequest = {
      ...request,
      requestSummary: `OVERDUE: the run's deadline passed while this write was unresolved. ${request.requestSummary}`,
      riskReasons: [...request.riskReasons, 'deadline_passed'],
    };
    state.waitingReason = 'unknown_write_outcome_overdue';
    state.stateVersion += 1;
    this.core.emit('human.escalated', {
      actionId: action.actionId,
      invocationSeq: action.invocationSeq ?? null,
      tool: action.tool ?? null,
      reason: 'deadline_passed',
      deadlineSeconds,
    });
    ports.publish(state);
    await ports.flushEvents(this.core.takeOutbox());
  }

  /**
   * Wait for a `provideInput` signal for `slot` (see input-wait.ts: expiry, a declared default). A
   * generation that continued this wait takes it up with the same action (and a value that came in
   * between).
   */
  async awaitInput(slot: string, prompt: string, options: WaitOptions = {}): Promise<string> {
    const continued = this.continuedWait('input', (p) => p.slot === slot);
    return awaitInput(this.parts, slot, prompt, options, continued);
  }
}
