import type { PolicyDecision } from '../../contract/policy-decision.js';
import type { Observation } from '../../contract/observation.js';
import type { ToolDefinition } from '../../contract/tool.js';
import { authorizeDispatch } from '../policy/index.js';
import { ArgumentValidator, unknownToolRejection } from '../../registry/sandbox.js';
import type { ObservationBase } from '../../contract/observation-text.js';
import { ALLOW_TAINTED_OBLIGATION, taintedKindsIn } from '../guardrails/data-taint.js';
import { TOOL_ARGUMENT_BOUNDS, jsonBoundsProblem } from '../../contract/json-bounds.js';
import { checkStep, checkToolCall } from './budget.js';
import type { HumanGate } from './human-gate.js';
import { deniedByObligations } from './obligations.js';
import type { RunCore } from './run-core.js';
import type { ToolOptions } from './run-context.js';
import { stopIfExhausted } from './run-stop.js';
import { argsDigestOf } from './args-digest.js';
import { rejectCall } from './tool-rejection.js';
import { versionedName } from '../../contract/versioned-name.js';

/** A proposed call every check before a person or the effect has let through. */
export interface CheckedCall {
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

/** Does the profile's tool list allow this name/version? Entries are `name` or `name@version`. */
function profileAllows(list: readonly string[], def: ToolDefinition): boolean {
  return list.includes(def.name) || list.includes(versionedName(def.name, def.version));
}

/**
 * The checks of a proposed tool call before a person or the effect (seed 004): the step budget, the
 * tool in the pinned snapshot and in the profile, the arguments' bounds and schema, the policy at the
 * dispatch point, tainted data in a write, the call budgets, and obligations the harness cannot meet.
 * A call that fails one is rejected and never scheduled.
 */
export class ToolCallChecks {
  private readonly validator = new ArgumentValidator();

  constructor(
    private readonly core: RunCore,
    private readonly gate: HumanGate,
  ) {}

  /** Resolve a tool by name and optional version against the pinned snapshot (highest version by default). */
  private resolve(name: string, version?: string): ToolDefinition | undefined {
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

  /**
   * Every check before a person or the effect: the tool, the profile, the arguments' bounds and
   * schema, the policy at dispatch, tainted data, the call budgets, obligations the harness cannot
   * meet. Returns the rejection's observation (after `tool.failed`), or the call as authorized so far.
   * Failure semantics: throws RunStop (`budget_exhausted`, after `budget.exhausted`) when the step
   * budget or a tool-call budget is exhausted; every other failed check is a returned rejection.
   */
  check(name: string, rawArgs: unknown, options: ToolOptions): Observation | CheckedCall {
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
      return rejectCall(this.core, base, r.rejection.code, r.rejection.message, {
        errors: r.rejection.errors,
      });
    }
    if (!profileAllows(this.core.profileTools, def)) {
      return rejectCall(
        this.core,
        base,
        'tool.not_in_profile',
        `${versionedName(def.name, def.version)} is not a tool of this profile`,
      );
    }
    // Before the schema walks them or anything serializes them (the digest, the intent).
    const tooLarge = jsonBoundsProblem(rawArgs, TOOL_ARGUMENT_BOUNDS);
    if (tooLarge !== undefined && this.core.features.on('boundedValues'))
      return rejectCall(this.core, base, 'tool.arguments_too_large', `the arguments ${tooLarge}`);
    const validation = this.validator.validate(def, rawArgs);
    if (!validation.ok) {
      const r = validation.rejection;
      return rejectCall(this.core, base, r.code, r.message, {
        errors: r.errors,
        omittedErrors: r.omittedErrors,
      });
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
      ...(this.core.features.on('decisionRules') ? { rules: this.core.decisionRules } : {}),
    });
    if (decision.decision === 'deny') {
      return rejectCall(
        this.core,
        base,
        'policy.denied',
        `policy ${decision.policyVersion} denied ${def.name}`,
        {
          reasonCodes: decision.reasonCodes,
        },
      );
    }
    decision = this.holdTaintedWrite(def, args, argsDigest, decision);
    const callKey = `${versionedName(def.name, def.version)}#${argsDigest}`;
    stopIfExhausted(checkToolCall(state.limits, state.budget, def.name, callKey), (t, d) =>
      this.core.emit(t, d),
    );
    // Signed runs: an obligation the harness cannot meet denies the call before anyone is asked.
    const denial = this.gate.signed ? deniedByObligations(decision.obligations, state.facts) : undefined;
    if (denial) {
      this.core.emit('obligation.denied', { tool: def.name, version: def.version, argsDigest, ...denial });
      return rejectCall(this.core, base, denial.code, denial.message, { obligation: denial.obligation });
    }
    return { def, args, argsDigest, callKey, at, base, decision };
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
    if (kinds.length === 0 || !this.core.features.on('dataTaint')) return decision;
    this.core.emit('data.taint_held', { tool: def.name, version: def.version, argsDigest, kinds });
    return {
      ...decision,
      decision: 'require_human',
      reasonCodes: [...kinds.map((k) => `data.tainted_${k}`), ...decision.reasonCodes],
    };
  }
}
