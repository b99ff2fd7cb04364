import type { PolicyDecision } from '../../contract/policy-decision.js';
import type { Observation } from '../../contract/observation.js';
import { sha256Hex } from '../../contract/sha256.js';
import type { ToolDefinition } from '../../contract/tool.js';
import { authorizeDispatch, recheckDecision } from '../policy/index.js';
import { ArgumentValidator, canonicalJson, unknownToolRejection } from '../../registry/sandbox.js';
import { checkStep, checkToolCall } from './budget.js';
import type { HumanGate } from './human-gate.js';
import {
  rejectedObservation,
  statusObservation,
  type ObservationBase,
} from '../../contract/observation-text.js';
import { LostWriteResolver } from './lost-write.js';
import type { ToolActivityOutcome, ToolCallInput } from './ports.js';
import type { RunCore } from './run-core.js';
import type { ToolOptions } from './run-context.js';
import type { InvocationSummary } from './run-state.js';
import { RunStop, stopIfExhausted } from './run-stop.js';
import { settleResult } from './settle-result.js';
import { ALLOW_TAINTED_OBLIGATION, maskSecrets, taintedKindsIn } from '../guardrails/data-taint.js';
import { deniedByObligations, obligationKind } from './obligations.js';
import { WriteRecovery } from './write-recovery.js';
import { callPromise } from './call-promise.js';
import { TOOL_NOT_STARTED } from '../../contract/failure-types.js';
import { TOOL_ARGUMENT_BOUNDS, jsonBoundsProblem } from '../../contract/json-bounds.js';

/** `sha256:<hex>` of the canonical JSON of `value`, computed in the sandbox. */
export function argsDigestOf(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}

/**
 * What a person is asked to decide: the policy's first own reason code, not the generic `policy.*`
 * catalogue codes (such as `policy.rule_matched`) a rules policy adds in front.
 */
function decisionTypeOf(reasonCodes: readonly string[]): string {
  return reasonCodes.find((c) => !c.startsWith('policy.')) ?? reasonCodes[0] ?? 'confirmation_required';
}

/** A proposed call every check before a person or the effect has let through. */
interface CheckedCall {
  readonly def: ToolDefinition;
  readonly args: Readonly<Record<string, unknown>>;
  readonly argsDigest: string;
  /** `name@version#argsDigest`: what the duplicate-call budget counts. */
  readonly callKey: string;
  /** When the call was proposed (workflow time). */
  readonly at: string;
  readonly base: ObservationBase;
  readonly decision: PolicyDecision;
}

/** An obligation a signed run meets before dispatch, by waiting: the customer's confirmation, the audit record. */
function isMetBeforeDispatch(obligation: string): boolean {
  const kind = obligationKind(obligation);
  return kind === 'confirm_user' || kind === 'audit';
}

/** Does the profile's tool list allow this name/version? Entries are `name` or `name@version`. */
function profileAllows(list: readonly string[], def: ToolDefinition): boolean {
  return list.includes(def.name) || list.includes(`${def.name}@${def.version}`);
}

/**
 * The tool pipeline (seed 004): proposal -> schema check -> policy (dispatch point) -> budgets ->
 * confirmation -> durable invocation (activity) -> observation. A rejected or denied call never
 * schedules an activity. A lost write is resolved through the evidence store, the tool's reconciler,
 * or a person; it is never dispatched again.
 */
export class ToolPipeline {
  private readonly validator = new ArgumentValidator();
  private readonly lostWrites: LostWriteResolver;

  constructor(
    private readonly core: RunCore,
    private readonly gate: HumanGate,
  ) {
    this.lostWrites = new LostWriteResolver(core, gate);
  }

  /** Resolve a tool by name and optional version against the pinned snapshot (highest version by default). */
  resolve(name: string, version?: string): ToolDefinition | undefined {
    const candidates = this.core.ports.tools.filter(
      (d) => d.name === name && (version === undefined || d.version === version),
    );
    return candidates.sort((a, b) => Number(b.version.slice(1)) - Number(a.version.slice(1)))[0];
  }

  private countStep(): void {
    const { state } = this.core;
    stopIfExhausted(checkStep(state.limits, state.budget), (t, d) => this.core.emit(t, d));
    state.budget.steps += 1;
    state.budget.stepsWithoutProgress += 1;
  }

  private reject(
    base: ObservationBase,
    code: string,
    message: string,
    details?: Record<string, unknown>,
  ): Observation {
    this.core.emit('tool.failed', {
      tool: base.tool,
      version: base.version,
      status: 'rejected',
      errorCode: code,
      message,
      details,
    });
    return rejectedObservation(base, code, message, details);
  }

  /**
   * Propose a tool call and, once every check passes, run it. The way a call takes when nobody is
   * asked has no `async` (call-promise.ts): its activity is scheduled in the caller's tick.
   */
  call(name: string, rawArgs: unknown, options: ToolOptions = {}): Promise<Observation> {
    return callPromise(() => {
      const checked = this.check(name, rawArgs, options);
      if (!('def' in checked)) return Promise.resolve(checked);
      const { decision } = checked;
      if (
        decision.decision === 'require_confirmation' ||
        decision.decision === 'require_human' ||
        (this.gate.signed && decision.obligations.some(isMetBeforeDispatch))
      )
        return this.confirmThenDispatch(checked);
      this.core.noteObligations(decision.obligations);
      return this.dispatch(checked.def, checked.args, checked.argsDigest, checked.callKey, checked.at);
    });
  }

  /**
   * Every check before a person or the effect: the tool, the profile, the arguments' bounds and
   * schema, the policy at dispatch, tainted data, the call budgets, obligations the harness cannot
   * meet. Returns the rejection's observation, or the call as authorized so far.
   * @throws RunStop when a budget is exhausted.
   */
  private check(name: string, rawArgs: unknown, options: ToolOptions): Observation | CheckedCall {
    const { state, ports } = this.core;
    this.countStep();
    const at = ports.now();
    const nameText = typeof name === 'string' ? name : String(name);
    this.core.emit('tool.proposed', {
      tool: nameText,
      version: options.version ?? null,
      proposalId: options.proposalId ?? null,
    });
    const def = this.resolve(nameText, options.version);
    const base: ObservationBase = {
      runId: state.runId,
      seq: -1,
      tool: nameText,
      version: options.version ?? def?.version ?? '',
      at,
    };
    if (!def) {
      const r = unknownToolRejection(nameText, options.version ?? '');
      return this.reject(base, r.rejection.code, r.rejection.message, { errors: r.rejection.errors });
    }
    if (!profileAllows(this.core.profileTools, def)) {
      return this.reject(
        base,
        'tool.not_in_profile',
        `${def.name}@${def.version} is not a tool of this profile`,
      );
    }
    // Before the schema walks them or anything serializes them (the digest, the intent).
    const tooLarge = jsonBoundsProblem(rawArgs, TOOL_ARGUMENT_BOUNDS);
    if (tooLarge !== undefined && (this.core.ports.boundedValues?.() ?? false))
      return this.reject(base, 'tool.arguments_too_large', `the arguments ${tooLarge}`);
    const validation = this.validator.validate(def, rawArgs);
    if (!validation.ok) {
      const r = validation.rejection;
      return this.reject(base, r.code, r.message, { errors: r.errors, omittedErrors: r.omittedErrors });
    }
    const args = validation.args;
    const argsDigest = argsDigestOf(args);
    let decision = authorizeDispatch(
      this.core.policy,
      def,
      args,
      ports.now(),
      state.facts,
      this.core.subject,
    );
    this.core.emit('policy.decided', {
      stage: 'dispatch',
      tool: def.name,
      version: def.version,
      argsDigest,
      ...decision,
    });
    if (decision.decision === 'deny') {
      return this.reject(base, 'policy.denied', `policy ${decision.policyVersion} denied ${def.name}`, {
        reasonCodes: decision.reasonCodes,
      });
    }
    decision = this.holdTaintedWrite(def, args, argsDigest, decision);
    const callKey = `${def.name}@${def.version}#${argsDigest}`;
    stopIfExhausted(checkToolCall(state.limits, state.budget, def.name, callKey), (t, d) =>
      this.core.emit(t, d),
    );
    // Signed runs: an obligation the harness cannot meet denies the call before anyone is asked.
    const denial = this.gate.signed ? deniedByObligations(decision.obligations, state.facts) : undefined;
    if (denial) {
      this.core.emit('obligation.denied', { tool: def.name, version: def.version, argsDigest, ...denial });
      return this.reject(base, denial.code, denial.message, { obligation: denial.obligation });
    }
    return { def, args, argsDigest, callKey, at, base, decision };
  }

  /**
   * The rest of a call that waits first: for a confirmation or an approval, for the customer
   * (`confirm.user.*`), or for the audit record (`log.audit.*`) to be stored.
   */
  private async confirmThenDispatch(checked: CheckedCall): Promise<Observation> {
    const { state, ports } = this.core;
    const { def, args, argsDigest, callKey, at, base, decision } = checked;
    if (decision.decision === 'require_confirmation' || decision.decision === 'require_human') {
      const human = await this.gate.decide(
        decision.decision === 'require_confirmation' ? 'confirmation' : 'human',
        {
          decisionType: decisionTypeOf(decision.reasonCodes),
          summary: `${def.name}@${def.version} ${maskSecrets(canonicalJson(args)).slice(0, 300)}`,
          policyEvidence: decision.reasonCodes.map((c) => `policy://${decision.policyVersion}#${c}`),
          // Taint digests are the harness's bookkeeping, not facts a person weighs.
          verifiedFacts: Object.keys(state.facts)
            .filter((k) => !k.startsWith('taint.'))
            .map((k) => `fact://${k}=${String(state.facts[k])}`),
          riskReasons: decision.obligations,
          action: { tool: def.name, version: def.version, args },
        },
        argsDigest,
        decision.obligations,
        decision.expiresAt,
      );
      if (human.decision === 'rejected')
        return this.reject(base, human.code, human.reason, { actor: human.actor });
      // The approval settles the confirmation, not the policy: a decision that expired meanwhile no longer holds.
      const still = recheckDecision(decision, ports.now());
      if (still.decision === 'deny') {
        return this.reject(
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
      const unmet = await this.meetObligations(
        def,
        args,
        argsDigest,
        decision.obligations,
        decision.expiresAt,
      );
      if (unmet) return this.reject(base, unmet.code, unmet.message, unmet.details);
    }
    this.core.noteObligations(decision.obligations);
    return this.dispatch(def, args, argsDigest, callKey, at);
  }

  /**
   * A write the policy allows that would carry a secret or personal data a tool returned earlier in
   * the run (docs/guardrails.md, "Data read from tools") goes to a person instead: the decision
   * becomes `require_human` with `data.tainted_secret` / `data.tainted_personal` first among its
   * reason codes, unless the policy's decision carries the obligation `allow.tainted_data`. Asked only
   * when that is the case; a Temporal host gates it with `patched()`.
   */
  private holdTaintedWrite(
    def: ToolDefinition,
    args: Readonly<Record<string, unknown>>,
    argsDigest: string,
    decision: PolicyDecision,
  ): PolicyDecision {
    if (def.effect !== 'write' || decision.decision !== 'allow') return decision;
    if (decision.obligations.includes(ALLOW_TAINTED_OBLIGATION)) return decision;
    const kinds = taintedKindsIn(args, this.core.state.facts);
    if (kinds.length === 0 || !(this.core.ports.dataTaint?.() ?? false)) return decision;
    this.core.emit('data.taint_held', { tool: def.name, version: def.version, argsDigest, kinds });
    return {
      ...decision,
      decision: 'require_human',
      reasonCodes: [...kinds.map((k) => `data.tainted_${k}`), ...decision.reasonCodes],
    };
  }

  /**
   * Signed runs, after the approvals: the customer confirms (`confirm.user.*`), then the audit record
   * naming every deciding principal is stored (`log.audit.*`) before the effect.
   * @returns why the call may not go ahead, or undefined.
   */
  private async meetObligations(
    def: ToolDefinition,
    args: Readonly<Record<string, unknown>>,
    argsDigest: string,
    obligations: readonly string[],
    expiresAt: string | undefined,
  ): Promise<{ code: string; message: string; details?: Record<string, unknown> } | undefined> {
    const confirmUser = obligations.filter((o) => obligationKind(o) === 'confirm_user');
    let customer: string | undefined;
    if (confirmUser.length > 0) {
      if (this.gate.requester === undefined)
        return {
          code: 'obligation.no_customer',
          message: `${confirmUser.join(', ')} needs the run's customer (start the run with a userId)`,
        };
      const c = await this.gate.decide(
        'confirmation',
        {
          decisionType: 'customer_confirmation',
          summary: `${def.name}@${def.version} ${maskSecrets(canonicalJson(args)).slice(0, 300)}`,
          riskReasons: confirmUser,
          action: { tool: def.name, version: def.version, args },
        },
        argsDigest,
        confirmUser,
        expiresAt,
        { customer: true },
      );
      if (c.decision === 'rejected') return { code: c.code, message: c.reason, details: { actor: c.actor } };
      customer = c.actor;
    }
    const audits = obligations.filter((o) => obligationKind(o) === 'audit');
    if (audits.length > 0) {
      this.core.emit('audit.recorded', {
        obligations: audits,
        tool: def.name,
        version: def.version,
        argsDigest,
        approvers: this.gate.approversOf({ actionId: '', tool: def.name, version: def.version, argsDigest }),
        customer: customer ?? null,
      });
      // Stored before the effect: the record exists even if the call is then lost.
      await this.core.ports.flushEvents(this.core.takeOutbox());
    }
    return undefined;
  }

  private dispatch(
    def: ToolDefinition,
    args: Readonly<Record<string, unknown>>,
    argsDigest: string,
    callKey: string,
    at: string,
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
      events: this.core.takeOutbox(),
    };
    return this.invoke(def, invocation, base, input, firstOfItsKind);
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
  ): Promise<Observation> {
    const summary = `${def.name}@${def.version} #${invocation.seq}`;
    // The first attempt with `then`, not `await` (call-promise.ts); the rest only when it did not complete.
    return callPromise(() => this.core.ports.callTool(first, { summary })).then((outcome) =>
      outcome.kind === 'completed'
        ? settleResult(this.core, invocation, base, outcome.result, firstOfItsKind, undefined)
        : this.afterIncomplete(def, invocation, base, first, firstOfItsKind, summary, outcome),
    );
  }

  /** The attempts of an invocation from its first, which did not complete (`outcome`), on. */
  private async afterIncomplete(
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
      const input = attempt === 1 ? first : { ...first, attempt, events: this.core.takeOutbox() };
      if (attempt > 1)
        outcome = await this.core.ports.callTool(input, { summary: `${summary} attempt ${attempt}` });
      if (outcome.kind !== 'completed') this.core.requeue(input.events); // the activity may not have stored them
      switch (outcome.kind) {
        case 'completed':
          return settleResult(this.core, invocation, base, outcome.result, firstOfItsKind, undefined);
        case 'failed': {
          if (def.effect === 'write' && outcome.code === TOOL_NOT_STARTED) {
            const next = await this.afterNoEffect(
              recovery,
              invocation,
              base,
              input,
              firstOfItsKind,
              attempt,
              {
                reason: outcome.code,
                byPerson: false,
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
          const next = await this.afterNoEffect(recovery, invocation, base, input, firstOfItsKind, attempt, {
            reason: `not_applied:${invocation.resolvedBy ?? 'unknown'}`,
            byPerson: invocation.resolvedBy?.startsWith('operator:') ?? false,
          });
          if (next === 'retry') continue;
          return next === 'fail' ? observation : next;
        }
      }
    }
  }

  /**
   * After an attempt of a write that provably did not take effect: `retry` (run the next attempt),
   * `fail` (the caller settles the write as failed), or the observation of a person's answer once
   * the automatic attempts ran out (`succeeded` done outside, `failed` given up); a person's
   * `not_applied` there is `retry`.
   */
  private async afterNoEffect(
    recovery: WriteRecovery,
    invocation: InvocationSummary,
    base: ObservationBase,
    input: ToolCallInput,
    firstOfItsKind: boolean,
    attempt: number,
    last: { readonly reason: string; readonly byPerson: boolean },
  ): Promise<'retry' | 'fail' | Observation> {
    const next = await recovery.afterNoEffect(attempt, last.reason, last.byPerson);
    if (next !== 'ask_person') return next;
    const answer = await this.lostWrites.askAfterAttempts(invocation, base, input, firstOfItsKind, {
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
