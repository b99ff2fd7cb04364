import {
  GuardrailStopCodes,
  appendFindingRecords,
  inputCheckedEvent,
  mergeObligations,
  type GuardrailFinding,
  type InputGuardrail,
  type InputGuardrailResult,
  type OutputGuardrail,
} from '../guardrails/index.js';
import { ArtifactSchema, type Artifact } from '../../contract/artifact.js';
import type { Observation } from '../../contract/observation.js';
import type { ToolDefinition } from '../../contract/tool.js';
import type { EvaluatorRegistry } from '../completion/index.js';
import { presentTools, type Policy, type PolicySubject } from '../policy/index.js';
import type { MemoryEntry } from '../../contract/memory.js';
import { ThreadMemory, type RememberOutcome } from './thread-memory.js';
import type { AgentEvent, DataClassification } from '../../contract/agent-event.js';
import { envelopeOf } from './event-catalogue.js';
import { budgetWarnings, checkModelCall, checkSpend, checkStep } from './budget.js';
import { HumanGate, type GateAuthorization } from './human-gate.js';
import type { ModelRoutePlan } from '../../contract/model-routes.js';
import type { BundlePin } from '../../contract/bundles.js';
import {
  nextFallback,
  pinnedRoute,
  routeForPurpose,
  summarizeRouteOf,
  type BilledUsage,
} from './model-routing.js';
import type { InvalidToolCall, ModelDecision, ModelPurpose, RunnerPorts } from './ports.js';
import { rejectInvalidToolCall } from './invalid-tool-call.js';
import type { Profile } from './profile.js';
import type { RunCore, TransitionPatch } from './run-core.js';
import type { CarriedWait } from './carried-wait.js';
import type {
  ConfirmRequest,
  HumanDecision,
  ModelRequest,
  RunContext,
  ToolOptions,
  WaitOptions,
} from './run-context.js';
import type { RunState } from './run-state.js';
import { ContinueAsNewRequested } from './continue-as-new.js';
import { RunStop, stopIfExhausted } from './run-stop.js';
import { assertTransition, isTerminal, type RunStatus } from '../../contract/statuses.js';
import { RunFinish } from './run-finish.js';
import { ToolPipeline } from './tool-pipeline.js';
import { callPromise } from './call-promise.js';

const MAX_RECENT_TRANSITIONS = 20;

/** What every attempt of one model call shares (the pinned route's fallbacks each make an attempt). */
interface ModelCallPlan {
  readonly callSeq: number;
  readonly purpose: ModelPurpose;
  readonly request: ModelRequest;
  readonly toolKeys: readonly string[];
  /** The route the run pinned for `purpose`: fallbacks are looked up from it. */
  readonly primary: string;
}

export interface RunnerOptions {
  readonly state: RunState;
  readonly ports: RunnerPorts;
  readonly policy: Policy;
  readonly profile: Profile;
  readonly evaluators: EvaluatorRegistry;
  readonly task: Readonly<Record<string, unknown>>;
  readonly approvalTimeoutSeconds: number;
  /** Tells a cancellation (Temporal's CancelledFailure) apart from other errors. */
  readonly isCancellation: (err: unknown) => boolean;
  /** True once the wall-clock deadline timer fired (its cancellation then means budget exhaustion). */
  readonly deadlineReached?: () => boolean;
  /** Input and output guardrails; absent: none (histories from before them replay unchanged). */
  readonly guardrails?: { readonly input: InputGuardrail; readonly output: OutputGuardrail };
  /** True when this runner continues a run carried over by continue-as-new. */
  readonly resumed?: boolean;
  /**
   * Asked once a blocked output would be retried (the profile retries and retries remain): true lets
   * the retry happen. The workflow answers with a `patched()` id, so it is asked only on that path.
   * Absent: blocked outputs are never retried.
   */
  readonly outputRetryEnabled?: () => boolean;
  /** Passed to the output guardrail (see `OutputCheckInput.exemptTrustedIdentifiers`); absent = yes. */
  readonly exemptTrustedIdentifiers?: () => boolean;
  /** Passed to the output guardrail (see `OutputCheckInput.limitText`); absent = yes. */
  readonly limitOutputText?: () => boolean;
  /**
   * Signed decisions and authorization rules (docs/authorization.md); obligations are enforced before
   * dispatch. Absent: histories from before them replay unchanged (decisions name a free actor).
   */
  readonly authorization?: GateAuthorization;
  /** What the previous generation's gate carried when it continued as new in the middle of a wait. */
  readonly carriedWait?: CarriedWait;
  /** The run's tenant and user (from its input): in `run.started` and every policy request. */
  readonly subject?: PolicySubject;
  /**
   * The model routes the run pinned at its start (docs/models.md): a route per purpose, each with its
   * fallbacks. Absent: every call goes to `versions.modelRoute`, with no fallback.
   */
  readonly modelRoutes?: ModelRoutePlan;
  /**
   * Asked when a failed call has a fallback to take: true takes it. The workflow answers with a
   * `patched()` id, so it is asked only on that path. Absent: no fallback.
   */
  readonly modelFallbackEnabled?: () => boolean;
  /**
   * The control-plane bundles the run pinned (docs/control-plane.md): in `run.created.bundles`.
   * Absent: the worker that served the start had no rollout config.
   */
  readonly bundles?: BundlePin;
  /** The profile instructions of the run's pinned prompt bundle ({@link RunContext.instructions}). */
  readonly instructions?: string;
  /**
   * The event envelope of `agent-run-event-envelope-v1` (docs/events.md), decided once at the start:
   * `traceId` (the run's OpenTelemetry trace id when tracing is on, else the run id), producer and
   * classification from the event catalogue, `model.started`, `model.failed` and `run.paused`.
   * Absent: the envelope of runs from before it (trace id = run id, producer `runner`).
   */
  readonly eventEnvelope?: { readonly traceId: string };
  /**
   * Model calls whose profile asks (`ModelRequest.invalidToolCalls`) get invalid tool calls back
   * instead of failing (`agent-run-invalid-tool-calls-v1`, decided at the start). Absent: not asked.
   */
  readonly invalidToolCalls?: boolean;
}

/**
 * The Runner state machine (seed 000/004): owns the run's state, the transition table, budgets and
 * guards, the tool pipeline, human gates, events and completion. Pure: it reaches Temporal only through
 * {@link RunnerPorts}, so it runs in the workflow sandbox and in unit tests alike.
 */
export class Runner implements RunContext, RunCore {
  readonly state: RunState;
  readonly ports: RunnerPorts;
  readonly subject: PolicySubject | undefined;
  readonly policy: Policy;
  readonly profileTools: readonly string[];
  readonly gate: HumanGate;
  private readonly tools: ToolPipeline;
  private readonly finish: RunFinish;
  private readonly threadMemory: ThreadMemory;
  /** The artifact each fact of this generation was recorded from (what a memory entry cites). */
  private readonly factEvidence = new Map<string, { readonly id: string; readonly provenance: string }>();
  private outbox: AgentEvent[] = [];
  /** The answer of a checkpoint that does not continue as new: one settled promise, not one per step. */
  private readonly resolved = Promise.resolve();
  /** The graph node attempt the run is in (see {@link RunContext.enterStep}); its events carry the id. */
  private attempt: { readonly id: string; readonly number: number } | undefined;
  /**
   * Budgets already warned about. A carried run (continue-as-new) starts with the budgets its usage
   * has already crossed: the previous generation warned when they crossed, so they do not warn again.
   */
  private readonly warned: Set<string>;

  get requester(): PolicySubject {
    return this.subject ?? {};
  }

  constructor(private readonly options: RunnerOptions) {
    this.state = options.state;
    this.warned = new Set(budgetWarnings(options.state.limits, options.state.budget));
    this.ports = options.ports;
    this.subject = options.subject;
    this.policy = options.policy;
    this.profileTools = options.profile.tools;
    this.gate = new HumanGate(
      this,
      options.approvalTimeoutSeconds,
      options.authorization,
      options.carriedWait,
    );
    this.tools = new ToolPipeline(this, this.gate);
    this.threadMemory = new ThreadMemory({
      state: this.state,
      policy: this.policy,
      subject: this.subject,
      port: () => this.ports.memory?.(),
      now: () => this.ports.now(),
      emit: (type, data, classification) => this.emit(type, data, classification),
      evidenceOf: (name) => this.factEvidence.get(name),
    });
    this.finish = new RunFinish(this, {
      evaluators: options.evaluators,
      outputGuardrail: options.guardrails?.output,
      outputRetryEnabled: options.outputRetryEnabled,
      exemptTrustedIdentifiers: options.exemptTrustedIdentifiers,
      limitOutputText: options.limitOutputText,
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
    if (!this.ports.shouldContinueAsNew?.()) return this.resolved;
    this.state.profileState = resumeState;
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
    const s = this.state;
    const sequence = s.nextEventSeq;
    s.nextEventSeq += 1;
    const v1 = this.options.eventEnvelope;
    const envelope = v1
      ? envelopeOf(type, data, classification)
      : { producer: 'runner', classification: classification ?? 'internal' };
    this.outbox.push({
      schemaVersion: '1',
      eventId: `${s.runId}:${sequence}`,
      traceId: v1?.traceId ?? s.runId,
      runId: s.runId,
      threadId: s.threadId,
      stepId: s.currentNode,
      attemptId: this.attempt?.id ?? null,
      sequence,
      type,
      occurredAt: this.ports.now(),
      producer: envelope.producer,
      data,
      dataClassification: envelope.classification,
      versions: s.versions,
    });
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
      (d) => this.profileTools.includes(d.name) || this.profileTools.includes(`${d.name}@${d.version}`),
    );
    const wanted = names ? mine.filter((d) => names.includes(d.name)) : mine;
    return presentTools(wanted, this.policy, this.ports.now(), this.state.facts, this.subject).visible;
  }

  model(purpose: ModelPurpose, request: ModelRequest): Promise<ModelDecision> {
    return callPromise(() => {
      const s = this.state;
      stopIfExhausted(checkStep(s.limits, s.budget) ?? checkModelCall(s.limits, s.budget), (t, d) =>
        this.emit(t, d),
      );
      s.budget.steps += 1;
      s.budget.stepsWithoutProgress += 1;
      // Presentation point: the model never sees a tool the policy excludes, whatever the profile asked.
      const allowed = new Set(this.visibleTools().map((d) => `${d.name}@${d.version}`));
      const toolKeys = (request.tools ?? [])
        .map((d) => `${d.name}@${d.version}`)
        .filter((k) => allowed.has(k));
      const callSeq = s.nextModelCall;
      s.nextModelCall += 1;
      const plan = this.options.modelRoutes;
      const primary = plan ? routeForPurpose(plan, purpose) : s.versions.modelRoute;
      this.emit(this.eventEnvelope ? 'model.started' : 'model.requested', {
        callSeq,
        purpose,
        modelRoute: primary,
        ...(plan ? { provider: pinnedRoute(plan, primary).provider } : {}),
        toolKeys,
      });
      return this.modelAttempt({ callSeq, purpose, request, toolKeys, primary }, primary, 0);
    });
  }

  /**
   * One attempt of a model call on `route` (the pinned route, or its fallback at `position`), and on
   * failure the next fallback's attempt. Written with `then` (call-promise.ts): one promise per attempt.
   */
  private modelAttempt(call: ModelCallPlan, route: string, position: number): Promise<ModelDecision> {
    const s = this.state;
    const plan = this.options.modelRoutes;
    const { callSeq, purpose, request, toolKeys, primary } = call;
    const events = this.takeOutbox();
    const pinned = plan ? pinnedRoute(plan, route) : undefined;
    const pending = callPromise(() =>
      this.ports.callModel(
        {
          runId: s.runId,
          callSeq,
          purpose,
          modelRoute: route,
          ...(pinned ? { routeDigest: pinned.digest } : {}),
          ...(position > 0 ? { fallback: position } : {}),
          ...(plan ? { summarizeRoute: summarizeRouteOf(plan) } : {}),
          newMessages: request.messages,
          toolKeys,
          outputSchema: request.outputSchema,
          ...(request.invalidToolCalls && this.options.invalidToolCalls
            ? { invalidToolCalls: 'report' }
            : {}),
          events,
        },
        pinned,
      ),
    );
    return pending.then(
      (decision) => this.modelCompleted(callSeq, purpose, route, decision),
      (err: unknown) => {
        this.requeue(events); // the activity may never have stored them
        const failure = err as { code?: string; message?: string; billed?: BilledUsage };
        const cancelled = this.options.isCancellation(err);
        const next = plan && !cancelled ? nextFallback(plan, primary, position, failure.code) : undefined;
        // The call failed for good on this route (its retries ran out): recorded before the run fails
        // or falls back. A cancellation is the run's end, not a model failure.
        if (this.eventEnvelope && !cancelled)
          this.emit('model.failed', {
            callSeq,
            purpose,
            modelRoute: route,
            ...(pinned ? { provider: pinned.provider } : {}),
            code: failure.code ?? 'model.failed',
            message: (failure.message ?? '').slice(0, 500),
          });
        if (!plan || !next || !this.options.modelFallbackEnabled?.()) throw err;
        // A billed failed attempt (a refusal) is counted once, here; attempts without an answer cost nothing.
        if (failure.billed) {
          s.budget.inputTokens += failure.billed.usage.inputTokens;
          s.budget.outputTokens += failure.billed.usage.outputTokens;
          s.budget.costUsd += failure.billed.costUsd;
        }
        this.emit('model.fallback', {
          callSeq,
          purpose,
          from: route,
          fromProvider: pinnedRoute(plan, route).provider,
          to: next.route,
          toProvider: pinnedRoute(plan, next.route).provider,
          reason: next.trigger,
          code: failure.code,
          message: (failure.message ?? '').slice(0, 500),
          ...(failure.billed ? { billed: failure.billed } : {}),
        });
        return this.modelAttempt(call, next.route, next.position);
      },
    );
  }

  /** A model call answered on `route`: usage into the budgets, `model.completed`, the spend check. */
  private modelCompleted(
    callSeq: number,
    purpose: ModelPurpose,
    route: string,
    decision: ModelDecision,
  ): ModelDecision {
    const s = this.state;
    const plan = this.options.modelRoutes;
    s.budget.modelCalls += 1;
    s.budget.inputTokens += decision.usage.inputTokens;
    s.budget.outputTokens += decision.usage.outputTokens;
    s.budget.costUsd += decision.costUsd;
    this.emit('model.completed', {
      callSeq,
      purpose,
      stopReason: decision.stopReason,
      usage: decision.usage,
      costUsd: decision.costUsd,
      toolCalls: decision.toolCalls.map((c) => `${c.name}@${c.version}`),
      replayed: decision.replayed,
      // The Temporal attempt of the model activity that got the answer.
      ...(this.eventEnvelope && decision.attempt !== undefined ? { activityAttempt: decision.attempt } : {}),
      ...(plan
        ? { modelRoute: route, provider: decision.provider ?? pinnedRoute(plan, route).provider }
        : {}),
    });
    // Tool output the input guardrail flagged in this call's request (recorded by the activity in
    // its result, so a replay emits the same): the finding is evidence, the data stayed fenced.
    if (decision.toolOutputFindings?.length)
      this.emit('guardrail.tool_output_flagged', { callSeq, findings: decision.toolOutputFindings });
    this.warnBudgets();
    stopIfExhausted(checkSpend(s.limits, s.budget), (t, d) => this.emit(t, d));
    this.ports.publish(s);
    return decision;
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
    const evidence = this.state.artifacts.find((a) => a.id === evidenceArtifactId);
    if (!evidence || evidence.provenance === 'model') {
      this.emit('fact.rejected', { name, evidenceArtifactId, code: 'fact.unverified_evidence' });
      return;
    }
    this.state.facts[name] = value;
    this.factEvidence.set(name, { id: evidence.id, provenance: evidence.provenance });
    this.state.budget.stepsWithoutProgress = 0;
    this.emit('fact.recorded', { name, value, evidenceArtifactId });
  }

  recall(): Promise<readonly MemoryEntry[]> {
    return this.threadMemory.recall();
  }

  remember(name: string, options?: { readonly ttlSeconds?: number }): Promise<RememberOutcome> {
    return this.threadMemory.remember(name, options);
  }

  addModelArtifact(artifact: Omit<Artifact, 'provenance'> & { provenance?: string }): Artifact {
    if (artifact.provenance !== undefined && artifact.provenance !== 'model') {
      this.emit('artifact.rejected', { id: artifact.id, code: 'artifact.forged_provenance' });
      throw new RunStop('failed', {
        code: 'artifact.forged_provenance',
        message: `a profile tried to create a ${artifact.provenance} artifact; profiles create only model artifacts`,
      });
    }
    const parsed = ArtifactSchema.parse({ ...artifact, provenance: 'model' });
    this.state.artifacts.push(parsed);
    this.emit('artifact.recorded', { id: parsed.id, type: parsed.type, provenance: 'model' });
    return parsed;
  }

  artifact(id: string): Artifact | undefined {
    return this.state.artifacts.find((a) => a.id === id);
  }

  enterStep(stepId: string, attempt?: number): string | undefined {
    this.state.currentNode = stepId;
    this.attempt =
      attempt === undefined
        ? undefined
        : { id: `${stepId}#${attempt}@${this.state.nextEventSeq}`, number: attempt };
    this.emit('step.started', attempt === undefined ? { stepId } : { stepId, attempt });
    this.ports.publish(this.state);
    return this.attempt?.id;
  }

  continueAttempt(attemptId: string, attempt: number): void {
    this.attempt = { id: attemptId, number: attempt };
  }

  completeStep(stepId: string): void {
    if (!this.state.completedSteps.includes(stepId)) this.state.completedSteps.push(stepId);
    const attempt = this.attempt;
    this.emit('step.completed', attempt ? { stepId, attempt: attempt.number } : { stepId });
    this.attempt = undefined;
  }

  graphNodeChecks(): boolean {
    return this.ports.graphNodeChecks?.() ?? false;
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
    const routes = this.options.modelRoutes;
    const bundles = this.options.bundles;
    this.emit('run.created', {
      versions: this.state.versions,
      ...(routes ? { modelRoutes: routes } : {}),
      ...(bundles ? { bundles } : {}),
    });
    this.transition('queued');
    this.transition('running');
    this.emit('run.started', { ...this.subject });
    this.emit('checkpoint.saved', { reason: 'run_created', stateVersion: this.state.stateVersion });
  }

  /**
   * Drive the profile to a terminal status. Never throws for run-level outcomes: budgets, cancellation,
   * failed completion, and tool failures end in typed states. A bug in the profile or runner ends the
   * run as `failed` with code `run.internal_error`.
   */
  async execute(profile: Profile): Promise<RunState> {
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
      this.stop(err);
    }
    await this.ports.flushEvents(this.takeOutbox(), { last: true });
    return this.state;
  }

  /** Cancellation requested by signal or by Temporal. */
  get cancelReason(): string {
    const c = this.gate.cancelRequest;
    return c ? `cancelled by ${c.actor}: ${c.reason}` : 'cancelled by a Temporal cancellation request';
  }

  /** End a run that was interrupted before the runner could record a terminal status. */
  async finishCancelled(): Promise<void> {
    this.stop(new RunStop('cancelled', { code: 'run.cancelled', message: this.cancelReason }));
    await this.ports.flushEvents(this.takeOutbox(), { last: true });
  }

  private stop(err: unknown): void {
    const s = this.state;
    let stop: RunStop;
    const cancelled =
      this.options.isCancellation(err) || (err instanceof RunStop && err.status === 'cancelled');
    if (cancelled && this.options.deadlineReached?.()) {
      stop = new RunStop('budget_exhausted', {
        code: 'budget.wall_clock_deadline',
        message: `budget wall_clock_deadline exhausted (limit ${s.limits.deadlineSeconds} s)`,
        details: { budget: 'wall_clock_deadline', limit: s.limits.deadlineSeconds },
      });
      this.emit('budget.exhausted', { budget: 'wall_clock_deadline', limit: s.limits.deadlineSeconds });
    } else if (err instanceof RunStop) stop = err;
    else if (this.options.isCancellation(err) || this.isCancelRequested()) {
      stop = new RunStop('cancelled', { code: 'run.cancelled', message: this.cancelReason });
    } else {
      const e = err as { message?: string; code?: string };
      stop = new RunStop('failed', {
        code: e.code ?? 'run.internal_error',
        message: e.message ?? String(err),
      });
    }
    if (isTerminal(s.status)) return;
    s.pendingAction = null;
    s.humanRequest = null;
    s.terminalReason = stop.reason;
    this.transition(stop.status, { waitingReason: null });
    this.emit(stop.status === 'cancelled' ? 'run.cancelled' : 'run.failed', {
      status: stop.status,
      reason: stop.reason,
      budget: { ...s.budget },
    });
  }
}
