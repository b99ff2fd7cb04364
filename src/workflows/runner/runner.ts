import {
  GuardrailStopCodes,
  appendFindingRecords,
  inputCheckedEvent,
  mergeObligations,
  type GuardrailFinding,
  type InputGuardrailResult,
} from '../guardrails/index.js';
import type { Artifact } from '../../contract/artifact.js';
import type { Observation } from '../../contract/observation.js';
import type { ToolDefinition } from '../../contract/tool.js';
import {
  policyVersionOf,
  presentTools,
  type Policy,
  type PolicyFacts,
  type PolicySubject,
} from '../policy/index.js';
import type { MemoryEntry } from '../../contract/memory.js';
import { ThreadMemory, type RememberOutcome } from './thread-memory.js';
import type { AgentEvent, DataClassification } from '../../contract/agent-event.js';
import { nextRunEvent } from './run-event.js';
import { budgetWarnings, wallClockDeadline } from './budget.js';
import { HumanGate } from './human-gate.js';
import type { InvalidToolCall, ModelDecision, ModelPurpose, RunnerPorts } from './ports.js';
import { rejectInvalidToolCall } from './invalid-tool-call.js';
import { IN_MEMORY_FEATURES, type RunFeatures } from './run-features.js';
import { flushLast } from './run-seal.js';
import type { Profile } from './profile.js';
import type { ActionDescriber } from './action-summary.js';
import { decisionRulesOf } from './decision-rules.js';
import type { DecisionRules } from '../../contract/policy-decision.js';
import type { RunCore, TransitionPatch } from './run-core.js';
import type {
  ConfirmRequest,
  HumanDecision,
  ModelRequest,
  RunContext,
  ToolOptions,
  WaitOptions,
} from './run-context.js';
import type { RunState, TerminalReason } from './run-state.js';
import type { RunnerOptions } from './runner-options.js';
import { ContinueAsNewRequested } from './continue-as-new.js';
import { RunStop } from './run-stop.js';
import { assertTransition, type RunStatus } from '../../contract/statuses.js';
import { RunFinish } from './run-finish.js';
import { ToolPipeline } from './tool-pipeline.js';
import { ModelStep } from './model-step.js';
import { RunEvidence } from './run-evidence.js';
import { endInterrupted } from './run-interruption.js';
import { versionedName } from '../../contract/versioned-name.js';
import { StepAttempts } from './step-attempts.js';
import { openRun } from './run-opening.js';

const MAX_RECENT_TRANSITIONS = 20;

/**
 * The Runner state machine (seed 000/004): state, transitions, budgets, guards, tools, human gates, events
 * and completion. Pure: it reaches Temporal only through {@link RunnerPorts} (sandbox and tests alike).
 */
export class Runner implements RunContext, RunCore {
  readonly state: RunState;
  readonly ports: RunnerPorts;
  readonly features: RunFeatures;
  readonly subject: PolicySubject | undefined;
  readonly policy: Policy;
  readonly policyVersion: string;
  readonly profileTools: readonly string[];
  readonly describeAction: ActionDescriber | undefined;
  readonly decisionRules: DecisionRules;
  readonly gate: HumanGate;
  private readonly tools: ToolPipeline;
  private readonly finish: RunFinish;
  private readonly modelStep: ModelStep;
  private readonly threadMemory: ThreadMemory;
  readonly evidence: RunEvidence;
  private outbox: AgentEvent[] = [];
  /** The answer of a checkpoint that does not continue as new: one settled promise, not one per step. */
  private readonly resolved = Promise.resolve();
  /** The step attempt the run is in (graph node or goal step); its events carry the ids. */
  readonly steps: StepAttempts;
  /** Budgets already warned about; a carried run starts with those its usage crossed (warned before). */
  private readonly warned: Set<string>;

  get requester(): PolicySubject {
    return this.subject ?? {};
  }

  constructor(private readonly options: RunnerOptions) {
    this.state = options.state;
    this.warned = new Set(budgetWarnings(options.state.limits, options.state.budget));
    this.ports = options.ports;
    this.features = options.features ?? IN_MEMORY_FEATURES;
    this.steps = new StepAttempts(this);
    this.subject = options.subject;
    this.policy = options.policy;
    this.policyVersion = policyVersionOf(options.policy);
    this.profileTools = options.profile.tools;
    this.describeAction = options.profile.describeAction;
    this.decisionRules = decisionRulesOf(options.policy, options.bundles);
    this.gate = new HumanGate(
      this,
      options.approvalTimeoutSeconds,
      options.authorization,
      options.carriedWait,
    );
    this.modelStep = new ModelStep(options);
    this.evidence = new RunEvidence(options.carriedFactVersions);
    this.tools = new ToolPipeline(this, this.gate, this.evidence);
    this.threadMemory = ThreadMemory.ofRun(this, this.evidence);
    this.finish = new RunFinish(this, {
      evaluators: options.evaluators,
      outputGuardrail: options.guardrails?.output,
    });
  }

  get runId(): string {
    return this.state.runId;
  }

  get task(): Readonly<Record<string, unknown>> {
    return this.options.task;
  }

  get instructions(): string | undefined {
    return this.options.instructions;
  }

  get resume(): Readonly<Record<string, unknown>> | undefined {
    return this.options.resumed ? this.state.profileState : undefined;
  }

  checkpoint(resumeState: Record<string, unknown>): Promise<void> {
    this.state.profileState = resumeState; // also what the run view reads (a routed run's plan)
    if (!this.ports.shouldContinueAsNew?.()) return this.resolved;
    this.emit('checkpoint.saved', { reason: 'continue_as_new', stateVersion: this.state.stateVersion });
    throw new ContinueAsNewRequested();
  }

  // ---- RunCore ----

  noteObligations(obligations: readonly string[]): void {
    this.state.obligations = mergeObligations(this.state.obligations, obligations);
  }

  guardInput(source: string, value: unknown): InputGuardrailResult | undefined {
    const guard = this.options.guardrails?.input;
    if (!guard) return undefined;
    const result = guard.check(value);
    const e = inputCheckedEvent(source, result);
    this.emit(e.type, e.data, e.classification);
    this.recordFindings('input', source, result.findings);
    return result;
  }

  recordFindings(stage: 'input' | 'output', source: string, findings: readonly GuardrailFinding[]): void {
    if (findings.length === 0) return;
    const s = this.state;
    s.guardrailFindings = appendFindingRecords(
      s.guardrailFindings,
      stage,
      source,
      this.ports.now(),
      findings,
    );
  }

  get eventEnvelope(): boolean {
    return this.options.eventEnvelope !== undefined;
  }

  emit(type: string, data: Record<string, unknown>, classification?: DataClassification): void {
    const source = {
      state: this.state,
      envelope: this.options.eventEnvelope,
      stepId: this.steps.stepId,
      attemptId: this.steps.attemptId,
      now: () => this.ports.now(),
    };
    this.outbox.push(nextRunEvent(source, type, data, classification));
  }

  takeOutbox(): AgentEvent[] {
    const out = this.outbox;
    this.outbox = [];
    return out;
  }

  /**
   * When the generation continues as new, after its last flush: the events emitted since (signal
   * handlers run while it stores them), with the count of refusals not yet recorded. The caller carries
   * them to the next generation, which stores them ({@link requeue}). Never throws.
   */
  takeLateEvents(): AgentEvent[] {
    this.gate.recordRefusalCount();
    return this.takeOutbox();
  }

  requeue(events: readonly AgentEvent[]): void {
    this.outbox = [...events, ...this.outbox];
  }

  warnBudgets(): void {
    for (const w of budgetWarnings(this.state.limits, this.state.budget)) {
      if (!this.warned.has(w)) {
        this.warned.add(w);
        this.emit('budget.warning', { budget: w });
      }
    }
  }

  isCancelRequested(): boolean {
    return this.gate.cancelRequest !== undefined;
  }

  isCancellation(err: unknown): boolean {
    return this.options.isCancellation(err);
  }

  transition(to: RunStatus, patch: TransitionPatch = {}): void {
    const s = this.state;
    assertTransition(s.status, to);
    const record = {
      fromVersion: s.stateVersion,
      fromStatus: s.status,
      toStatus: to,
      node: s.currentNode,
      patch: { ...patch },
      occurredAt: this.ports.now(),
    };
    s.status = to;
    s.stateVersion += 1;
    if (patch.waitingReason !== undefined) s.waitingReason = patch.waitingReason;
    if (patch.currentNode !== undefined) s.currentNode = patch.currentNode;
    s.recentTransitions.push(record);
    if (s.recentTransitions.length > MAX_RECENT_TRANSITIONS) s.recentTransitions.shift();
    this.emit('state.transitioned', { ...record, toVersion: s.stateVersion });
    this.ports.publish(s);
  }

  // ---- RunContext ----

  visibleTools(names?: readonly string[]): ToolDefinition[] {
    const mine = this.ports.tools.filter(
      (d) =>
        this.profileTools.includes(d.name) || this.profileTools.includes(versionedName(d.name, d.version)),
    );
    const wanted = names ? mine.filter((d) => names.includes(d.name)) : mine;
    return presentTools(wanted, this.policy, this.ports.now(), this.state.facts, this.subject).visible;
  }

  model(purpose: ModelPurpose, request: ModelRequest): Promise<ModelDecision> {
    const step = this.steps.enterCall(`model-${this.state.nextModelCall}`);
    const decision = this.modelStep.call(this, purpose, request);
    return step ? decision.finally(() => this.steps.leaveCall(step)) : decision;
  }

  tool(name: string, args: unknown, options?: ToolOptions): Promise<Observation> {
    return this.tools.call(name, args, options);
  }

  invalidToolCall(call: InvalidToolCall): Observation {
    return rejectInvalidToolCall(this, call);
  }

  confirm(request: ConfirmRequest, options?: WaitOptions): Promise<HumanDecision> {
    return this.gate.decide('confirmation', request, undefined, undefined, undefined, {}, options);
  }

  askHuman(request: ConfirmRequest, options?: WaitOptions): Promise<HumanDecision> {
    return this.gate.decide('human', request, undefined, undefined, undefined, {}, options);
  }

  askInput(slot: string, prompt: string, options?: WaitOptions): Promise<string> {
    return this.gate.awaitInput(slot, prompt, options);
  }

  recordFact(name: string, value: string | number | boolean, evidenceArtifactId: string): void {
    this.evidence.recordFact(this, name, value, evidenceArtifactId);
  }

  withdrawFact(name: string, reason: string): void {
    this.evidence.withdrawFact(this, name, reason);
  }

  facts(): PolicyFacts {
    return { ...this.state.facts };
  }

  recall(): Promise<readonly MemoryEntry[]> {
    return this.threadMemory.recall();
  }

  remember(name: string, options?: { readonly ttlSeconds?: number }): Promise<RememberOutcome> {
    return this.threadMemory.remember(name, options);
  }

  addModelArtifact(artifact: Omit<Artifact, 'provenance'> & { provenance?: string }): Artifact {
    return this.evidence.addModelArtifact(this, artifact);
  }

  artifact(id: string): Artifact | undefined {
    return this.state.artifacts.find((a) => a.id === id);
  }

  enterStep(stepId: string, attempt?: number): string | undefined {
    return this.steps.enter(stepId, attempt);
  }

  continueAttempt(attemptId: string, attempt: number): void {
    this.steps.continueAttempt(attemptId, attempt);
  }

  completeStep(stepId: string): void {
    this.steps.complete(stepId);
  }

  graphNodeChecks(): boolean {
    return this.features.on('graphNodeChecks');
  }

  stepContracts(): boolean {
    return this.features.on('stepContracts');
  }

  get deadline(): string {
    return wallClockDeadline(this.state.startedAt, this.state.limits);
  }

  now(): string {
    return this.ports.now();
  }

  cancelRequested(): boolean {
    return this.isCancelRequested() || (this.options.hostCancelled?.() ?? false);
  }

  async sleep(seconds: number): Promise<void> {
    this.transition('retry_scheduled', { waitingReason: `retry_after:${seconds}s` });
    await this.ports.flushEvents(this.takeOutbox());
    await this.ports.sleep(seconds * 1000);
    this.transition('running', { waitingReason: null });
  }

  // ---- lifecycle ----

  /** Move a freshly created state to `running` and record the start. */
  start(): void {
    openRun(this, this.options, this.subject);
  }

  /**
   * Drive the profile to a terminal status, then store the last events unless `flush` is false (the
   * host stores them, run-frame.ts). Never throws for run-level outcomes (budgets, cancellation, failed
   * completion, tool failures); a bug in profile or runner: `failed`, `run.internal_error`. */
  async execute(profile: Profile, flush = true): Promise<RunState> {
    if (this.state.status === 'created') this.start();
    try {
      const input = this.guardInput('task', this.options.task);
      if (input?.verdict === 'block') {
        throw new RunStop('failed', {
          code: GuardrailStopCodes.inputBlocked,
          message: `the input guardrail blocked the task: ${input.reasonCodes.join(', ')}`,
          details: { reasonCodes: input.reasonCodes },
        });
      }
      let result = await profile.run(this);
      for (;;) {
        this.state.output = result.output;
        const blocked = this.finish.guardOutput();
        if (!blocked) break;
        result = await this.finish.retryBlocked(profile, result, blocked);
      }
      this.finish.complete(profile);
    } catch (err) {
      if (err instanceof ContinueAsNewRequested) throw err;
      this.stop(err, profile);
    }
    if (flush) await flushLast(this);
    return this.state;
  }

  /** Cancellation requested by signal or by Temporal. */
  get cancelReason(): string {
    const c = this.gate.cancelRequest;
    return c ? `cancelled by ${c.actor}: ${c.reason}` : 'cancelled by a Temporal cancellation request';
  }

  /** End a run interrupted before the runner recorded a terminal status; store the last events unless `flush` is false. */
  async finishCancelled(flush = true): Promise<void> {
    this.stop(new RunStop('cancelled', { code: 'run.cancelled', message: this.cancelReason }));
    if (flush) await flushLast(this);
  }

  private stop(err: unknown, profile?: Profile): void {
    const deliver = profile && ((r: TerminalReason) => this.finish.deliver(profile, this.task, r));
    endInterrupted(this, err, () => this.options.deadlineReached?.(), deliver);
  }
}
