import { PrincipalDirectory } from '../authz/principal-directory.js';
import type { HumanRequest, PendingAction } from '../../contract/pending-action.js';
import { ContinueAsNewRequested } from './continue-as-new.js';
import type { DecisionIntake, Mailbox } from './decision-intake.js';
import type { GateAuthorization } from './human-gate.js';
import type { RunCore } from './run-core.js';
import type { WaitOptions } from './run-context.js';
import { RunStop } from './run-stop.js';

/**
 * One wait for a person (seed 004): the run pauses in a waiting status with its pending action and
 * request stored, and resumes when the {@link DecisionIntake} holds an answer or a cancellation, when
 * the action expires, or when the history reaches its bound for a waiting run (the wait then moves
 * to a new history or ends the run).
 */
export class HumanWait {
  constructor(
    private readonly core: RunCore,
    private readonly intake: DecisionIntake,
    private readonly authz: GateAuthorization | undefined,
  ) {}

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

  /**
   * Wait for a decision on `action`. `continued`: the previous generation was already waiting for it
   * (the state still names it; a decision may already be in the mailbox). When the history is over
   * its bound (see {@link RunnerPorts.historyOverWaitBound}) after this wait refused a decision, and
   * no decision has come:
   * with `resumeAt`, the run continues as new carrying it as the profile's resume state and waits
   * again in the next generation; without, the run ends `failed` with `run.history_limit`.
   * Resolves with what came (undefined when the wait expired); the run is `running` again.
   * @throws ContinueAsNewRequested, RunStop(failed, `run.history_limit`) as above;
   *   RunStop(cancelled) when the run is cancelled while waiting.
   */
  async wait(
    action: PendingAction,
    status: 'awaiting_confirmation' | 'awaiting_human' | 'awaiting_input',
    waitingReason: string,
    request: HumanRequest | null,
    options: WaitOptions & { readonly continued?: boolean } = {},
  ): Promise<Mailbox | undefined> {
    const { state, ports } = this.core;
    if (this.authz) await this.loadPrincipals();
    if (options.continued) {
      this.core.emit('human.wait_continued', { actionId: action.actionId, kind: action.kind });
      ports.publish(state);
    } else {
      this.intake.mailbox = undefined;
      state.pendingAction = action;
      state.humanRequest = request;
      this.core.transition(status, { waitingReason });
      this.core.emit('human.requested', { action, request });
      if (this.core.eventEnvelope)
        this.core.emit('run.paused', {
          status,
          waitingReason,
          actionId: action.actionId,
          kind: action.kind,
        });
    }
    this.core.emit('checkpoint.saved', { reason: 'before_pause', stateVersion: state.stateVersion });
    await ports.flushEvents(this.core.takeOutbox());
    const timeoutMs =
      action.expiresAt === null
        ? undefined
        : Math.max(0, Date.parse(action.expiresAt) - Date.parse(ports.now()));
    const answered = () => this.intake.mailbox !== undefined || this.intake.cancel !== undefined;
    // The size is read only while nothing is answered, so a decision always wins over the bound, and
    // only once this wait refused something: the bound is about what refused decisions add. A history
    // that was over it already (a bound below what a generation needs to start) never loops.
    const refusedBefore = options.continued ? 0 : this.intake.refusals.count;
    const historyFull = () =>
      this.intake.refusals.count > refusedBefore && ports.historyOverWaitBound?.() !== undefined;
    const ready = await ports.waitUntil(() => answered() || historyFull(), timeoutMs);
    if (ready && !answered()) this.leaveFullHistory(action, waitingReason, options.resumeAt);
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
   * The history reached its bound during the wait for `action`, undecided. The refusals counted so
   * far are recorded; then the run continues as new (the wait stays pending in the state) when the
   * profile said where to resume, or ends `failed` with `run.history_limit` naming the wait.
   * @throws ContinueAsNewRequested or RunStop; never returns.
   */
  private leaveFullHistory(
    action: PendingAction,
    waitingReason: string,
    resumeAt: Record<string, unknown> | undefined,
  ): never {
    const { state, ports } = this.core;
    const historySizeBytes = ports.historyOverWaitBound?.() ?? 0;
    this.intake.refusals.endWait();
    if (resumeAt !== undefined) {
      state.profileState = resumeAt;
      this.core.emit('checkpoint.saved', {
        reason: 'continue_as_new',
        stateVersion: state.stateVersion,
        waitingFor: action.actionId,
        historySizeBytes,
      });
      throw new ContinueAsNewRequested();
    }
    this.intake.waiting = undefined;
    throw new RunStop('failed', {
      code: 'run.history_limit',
      message: `the history reached ${historySizeBytes} bytes while the run waited for ${action.actionId} (${waitingReason}), which cannot move to a new history; the run ends before the server terminates it`,
      details: { actionId: action.actionId, kind: action.kind, waitingReason, historySizeBytes },
    });
  }
}
