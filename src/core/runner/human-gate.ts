import type {
  CancelRunSignal,
  DecisionOutcome,
  DecisionSignalName,
  ReconcileSignal,
} from '../../contract/signals.js';
import type { DecidedAction, DecisionAuthority } from '../authz/decision-authority.js';
import { PrincipalDirectory } from '../authz/principal-directory.js';
import type { PrincipalsSnapshot } from '../workflow/activity-interfaces.js';
import { addSeconds } from '../policy/index.js';
import { earliestExpiry } from '../policy/decision-time.js';
import { DecisionIntake, type Mailbox } from './decision-intake.js';
import type { RunCore } from './run-core.js';
import type { ConfirmRequest, HumanDecision } from './run-context.js';
import type { HumanRequest, PendingAction } from './pending-action.js';
import { RunStop } from './run-stop.js';
import { argsDigestOf } from './tool-pipeline.js';

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
  private actionCounter = 0;

  constructor(
    private readonly core: RunCore,
    private readonly approvalTimeoutSeconds: number,
    private readonly authz?: GateAuthorization,
  ) {
    this.intake = new DecisionIntake(core, authz?.authority);
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

  /** Decisions refused since the run (this generation) started. */
  get refusals(): number {
    return this.intake.refusals.count;
  }

  /** Take a decision by name (a signal or the `decide` update); see {@link DecisionIntake.receive}. */
  receive(signal: DecisionSignalName, payload: unknown): DecisionOutcome {
    return this.intake.receive(signal, payload);
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
    this.intake.mailbox = undefined;
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
    await ports.waitUntil(
      () => this.intake.mailbox !== undefined || this.intake.cancel !== undefined,
      timeoutMs,
    );
    const received = this.intake.mailbox;
    this.intake.mailbox = undefined;
    this.intake.waiting = undefined;
    state.pendingAction = null;
    state.humanRequest = null;
    this.intake.refusals.endWait();
    if (this.intake.cancel) {
      this.core.emit('human.decided', {
        actionId: action.actionId,
        decision: 'cancelled',
        actor: this.intake.cancel.actor,
      });
      throw new RunStop('cancelled', {
        code: 'run.cancelled',
        message: `cancelled by ${this.intake.cancel.actor}: ${this.intake.cancel.reason}`,
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

  /** Wait for a `reconcile` signal about invocation `seq` (unknown write outcome). */
  async awaitReconciliation(
    seq: number,
    tool: string,
    version: string,
    exhausted?: { readonly attempts: number; readonly lastReason: string },
  ): Promise<ReconcileSignal> {
    const actionId = this.authz
      ? this.authz.authority.nextActionId('r', tool, String(seq))
      : `reconcile-${seq}`;
    if (this.authz)
      this.intake.waiting = { action: { actionId, tool, version }, customer: false, dispatch: false };
    const action: PendingAction = {
      actionId,
      kind: 'reconcile',
      invocationSeq: seq,
      tool,
      version,
      expiresAt: null,
    };
    const reason = exhausted ? 'write_attempts_exhausted' : 'unknown_write_outcome';
    const request: HumanRequest = {
      runId: this.core.state.runId,
      decisionType: reason,
      requestSummary: exhausted
        ? `${tool}@${version} #${seq} was approved but did not take effect in ${exhausted.attempts} attempts (last: ${exhausted.lastReason}); send a reconcile signal: not_applied to try again, failed to give it up, succeeded if it was done outside the run`
        : `${tool}@${version} #${seq} may or may not have taken effect; check the external system and send a reconcile signal`,
      verifiedFacts: [],
      policyEvidence: [],
      proposedAction: `invocation://${this.core.state.runId}/${seq}`,
      riskReasons: [exhausted ? 'write_attempts_exhausted' : 'write_outcome_unknown'],
      allowedDecisions: ['succeeded', 'failed', 'not_applied'],
      expiresAt: '',
    };
    const received = await this.wait(action, 'awaiting_human', reason, request);
    if (received?.kind !== 'reconcile') throw new Error('reconciliation wait ended without a signal');
    this.core.emit('human.decided', { actionId: action.actionId, ...received.signal });
    return received.signal;
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

  /** Wait for a `provideInput` signal for `slot`. */
  async awaitInput(slot: string, prompt: string): Promise<string> {
    const actionId = this.authz ? this.authz.authority.nextActionId('i', slot) : `input-${slot}`;
    if (this.authz) this.intake.waiting = { action: { actionId }, customer: false, dispatch: false };
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
