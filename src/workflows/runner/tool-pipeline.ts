import type { Observation } from '../../contract/observation.js';
import type { ToolDefinition } from '../../contract/tool.js';
import { recheckDecision } from '../policy/index.js';
import type { RunEvidence } from './run-evidence.js';
import type { HumanGate } from './human-gate.js';
import type { ObservationBase } from '../../contract/observation-text.js';
import type { ToolCallInput } from './ports.js';
import { noteWorkerRefusals } from './worker-refusals.js';
import type { RunCore } from './run-core.js';
import type { ToolOptions } from './run-context.js';
import type { InvocationSummary } from './run-state.js';
import { settleResult } from './settle-result.js';
import { actionSummary } from './action-summary.js';
import { callPromise } from './call-promise.js';
import { ToolCallChecks, type CheckedCall } from './tool-call-checks.js';
import { isMetBeforeDispatch, meetObligations } from './dispatch-obligations.js';
import { withGateFloor } from './gate-floor.js';
import { IncompleteAttempts } from './incomplete-attempts.js';
import { rejectCall } from './tool-rejection.js';
import { versionedName } from '../../contract/versioned-name.js';
import { definitionDigest } from '../../registry/sandbox.js';

// The Temporal binding (temporal-ports.ts) takes the digest from here.

/**
 * What a person is asked to decide: the policy's first own reason code, not the generic `policy.*`
 * catalogue codes (such as `policy.rule_matched`) a rules policy adds in front.
 */
function decisionTypeOf(reasonCodes: readonly string[]): string {
  return reasonCodes.find((c) => !c.startsWith('policy.')) ?? reasonCodes[0] ?? 'confirmation_required';
}

/**
 * The tool pipeline (seed 004): proposal -> schema check -> policy (dispatch point) -> budgets ->
 * confirmation -> durable invocation (activity) -> observation. A rejected or denied call never
 * schedules an activity. A lost write is resolved through the evidence store, the tool's reconciler,
 * or a person; it is never dispatched again.
 */
export class ToolPipeline {
  private readonly checks: ToolCallChecks;
  private readonly incomplete: IncompleteAttempts;

  constructor(
    private readonly core: RunCore,
    private readonly gate: HumanGate,
    private readonly evidence: RunEvidence,
  ) {
    this.checks = new ToolCallChecks(core, gate);
    this.incomplete = new IncompleteAttempts(core, gate);
  }

  /**
   * Propose a tool call and, once every check passes, run it. The way a call takes when nobody is
   * asked has no `async` (call-promise.ts): its activity is scheduled in the caller's tick.
   */
  call(name: string, rawArgs: unknown, options: ToolOptions = {}): Promise<Observation> {
    return callPromise(() => {
      const found = this.checks.check(name, rawArgs, options);
      if (!('def' in found)) return Promise.resolve(found);
      const checked = this.gateFloor(found, options);
      const { decision } = checked;
      if (
        decision.decision === 'require_confirmation' ||
        decision.decision === 'require_human' ||
        (this.gate.signed && decision.obligations.some(isMetBeforeDispatch))
      )
        return this.confirmThenDispatch(checked);
      this.core.noteObligations(decision.obligations);
      // Nobody was asked: a fast read may take the fast path.
      return this.dispatch(checked.def, checked.args, checked.argsDigest, checked.callKey, checked.at, true);
    });
  }

  /** The call under the caller's gate floor (`ToolOptions.gate`); `route.gate_enforced` when it raised the decision. */
  private gateFloor(checked: CheckedCall, options: ToolOptions): CheckedCall {
    const floor = withGateFloor(checked.decision, checked.def, options.gate, this.gate.signed);
    if (!floor.raised) return checked;
    this.core.emit('route.gate_enforced', {
      tool: checked.def.name,
      version: checked.def.version,
      argsDigest: checked.argsDigest,
      gate: options.gate,
      policyDecision: checked.decision.decision,
    });
    return { ...checked, decision: floor.decision };
  }

  /**
   * The rest of a call that waits first: for a confirmation or an approval, for the customer
   * (`confirm.user.*`), or for the audit record (`log.audit.*`) to be stored.
   */
  private async confirmThenDispatch(checked: CheckedCall): Promise<Observation> {
    const { ports } = this.core;
    const { def, args, argsDigest, callKey, at, base, decision } = checked;
    if (decision.decision === 'require_confirmation' || decision.decision === 'require_human') {
      const human = await this.gate.decide(
        decision.decision === 'require_confirmation' ? 'confirmation' : 'human',
        {
          decisionType: decisionTypeOf(decision.reasonCodes),
          summary: actionSummary(this.core.describeAction, def, args),
          policyEvidence: decision.reasonCodes.map((c) => `policy://${decision.policyVersion}#${c}`),
          // Taint digests are the harness's bookkeeping, not facts a person weighs.
          verifiedFacts: this.evidence.factRefs(this.core),
          riskReasons: decision.obligations,
          action: { tool: def.name, version: def.version, args },
        },
        argsDigest,
        decision.obligations,
        decision.expiresAt,
      );
      if (human.decision === 'rejected')
        return rejectCall(this.core, base, human.code, human.reason, { actor: human.actor });
      // The approval settles the confirmation, not the policy: a decision that expired meanwhile no longer holds.
      const still = recheckDecision(decision, ports.now());
      if (still.decision === 'deny') {
        return rejectCall(
          this.core,
          base,
          'policy.denied',
          `policy ${still.policyVersion} decision expired before dispatch`,
          {
            reasonCodes: still.reasonCodes,
          },
        );
      }
    }
    if (this.gate.signed) {
      const unmet = await meetObligations(
        this.core,
        this.gate,
        def,
        args,
        argsDigest,
        decision.obligations,
        decision.expiresAt,
      );
      if (unmet) return rejectCall(this.core, base, unmet.code, unmet.message, unmet.details);
    }
    this.core.noteObligations(decision.obligations);
    return this.dispatch(def, args, argsDigest, callKey, at, false);
  }

  private dispatch(
    def: ToolDefinition,
    args: Readonly<Record<string, unknown>>,
    argsDigest: string,
    callKey: string,
    at: string,
    unasked: boolean,
  ): Promise<Observation> {
    const { state, ports } = this.core;
    const seq = state.nextSeq;
    state.nextSeq += 1;
    state.budget.toolCalls += 1;
    state.budget.perTool[def.name] = (state.budget.perTool[def.name] ?? 0) + 1;
    const firstOfItsKind = state.budget.callDigests[callKey] === undefined;
    state.budget.callDigests[callKey] = (state.budget.callDigests[callKey] ?? 0) + 1;
    this.core.warnBudgets();
    const invocation: InvocationSummary = {
      seq,
      tool: def.name,
      version: def.version,
      effect: def.effect,
      argsDigest,
      status: 'pending',
      artifactIds: [],
    };
    state.invocations.push(invocation);
    // A goal run's tool step (step contracts): its events from here to its observation carry its ids.
    const step = this.core.steps.enterCall(`tool-${seq}`);
    this.core.emit('tool.authorized', {
      seq,
      tool: def.name,
      version: def.version,
      effect: def.effect,
      argsDigest,
    });
    ports.publish(state);
    const base: ObservationBase = { runId: state.runId, seq, tool: def.name, version: def.version, at };
    const input: ToolCallInput = {
      runId: state.runId,
      seq,
      tool: def.name,
      version: def.version,
      effect: def.effect,
      args,
      argsDigest,
      idempotencyKey: `${state.runId}/${seq}`,
      ...(this.core.features.on('toolDefinitionPin') ? { definitionDigest: definitionDigest(def) } : {}),
      ...(def.effect === 'read' && this.core.features.on('stepContracts')
        ? { recordFailedAttempts: true }
        : {}),
      ...(this.core.features.on('workerRefusal') ? { workerRefusal: true as const } : {}),
      events: this.core.takeOutbox(),
    };
    const observed = this.invoke(
      def,
      invocation,
      base,
      input,
      firstOfItsKind,
      unasked ? this.fastMs(def) : undefined,
    );
    return step ? observed.finally(() => this.core.steps.leaveCall(step)) : observed;
  }

  /**
   * The fast-path timeout of a call nobody was asked about: a read declared `fast`, on a run with the
   * fast path. Undefined otherwise (a write never takes it; the registry refuses `fast` on one).
   */
  private fastMs(def: ToolDefinition): number | undefined {
    if (def.effect !== 'read' || def.fast === undefined) return undefined;
    return this.core.features.on('fastPath') ? def.fast.timeoutMs : undefined;
  }

  /**
   * Run the invocation's attempts: the first, and for a write under recovery (seed 004) a new attempt
   * under the same approval and idempotency key each time one is settled not applied or failed
   * before its executor ran, up to {@link MAX_WRITE_ATTEMPTS}.
   */
  private invoke(
    def: ToolDefinition,
    invocation: InvocationSummary,
    base: ObservationBase,
    first: ToolCallInput,
    firstOfItsKind: boolean,
    fastMs: number | undefined,
  ): Promise<Observation> {
    const summary = `${versionedName(def.name, def.version)} #${invocation.seq}`;
    const options = fastMs === undefined ? { summary } : { summary, fastMs };
    // The first attempt with `then`, not `await` (call-promise.ts); the rest only when it did not complete.
    return callPromise(() => this.core.ports.callTool(first, options)).then((outcome) => {
      noteWorkerRefusals(this.core, invocation, outcome);
      return outcome.kind === 'completed'
        ? settleResult(this.core, invocation, base, outcome.result, firstOfItsKind, undefined)
        : this.incomplete.afterIncomplete(def, invocation, base, first, firstOfItsKind, summary, outcome);
    });
  }
}
