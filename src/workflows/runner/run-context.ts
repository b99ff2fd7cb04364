import type { PolicyFacts, PolicySubject } from '../policy/policy.js';
import type { GateFloor } from './gate-floor.js';
import type { Artifact } from '../../contract/artifact.js';
import type { MemoryEntry } from '../../contract/memory.js';
import type { RememberOutcome } from './thread-memory.js';
import type { Observation } from '../../contract/observation.js';
import type { ToolDefinition } from '../../contract/tool.js';
import type { DataClassification } from '../../contract/agent-event.js';
import type { InvalidToolCall, ModelDecision, ModelMessageInput, ModelPurpose } from './ports.js';

/** What a profile asks the model. */
export interface ModelRequest {
  readonly messages: readonly ModelMessageInput[];
  /** Offer these tools (already policy-filtered by {@link RunContext.visibleTools}); default none. */
  readonly tools?: readonly ToolDefinition[];
  /**
   * JSON Schema the final text must satisfy (a JSON document): sent to the provider as structured
   * output and, unless {@link ModelRequest.outputCheck} is `caller`, checked by the model activity
   * (an answer that does not match fails the call with `model.output_invalid`, non-retryable).
   */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /**
   * `caller`: the `outputSchema` is still sent to the provider, but the model activity does not check
   * the answer against it: the text comes back as the model wrote it (maybe not JSON, maybe not
   * matching) and the profile must parse and check it itself, e.g. to map an unknown value to its
   * fallback instead of failing the run. Absent: the activity checks (see `outputSchema`). Without an
   * `outputSchema` it changes nothing. A worker from before this field ignores it and checks.
   */
  readonly outputCheck?: 'caller';
  /**
   * `report`: tool calls whose name was not offered or whose arguments are not a JSON object come back
   * in `ModelDecision.invalidToolCalls` (hand each to {@link RunContext.invalidToolCall}) instead of
   * ending the run. Honoured on runs since `agent-run-invalid-tool-calls-v1` (the runner's
   * `invalidToolCalls` option); on older runs such a call still fails the model call. Default: not asked.
   */
  readonly invalidToolCalls?: 'report';
}

export interface ConfirmRequest {
  readonly decisionType: string;
  readonly summary: string;
  readonly verifiedFacts?: readonly string[];
  readonly policyEvidence?: readonly string[];
  readonly riskReasons?: readonly string[];
  /** The tool call this confirmation is bound to, if any. */
  readonly action?: {
    readonly tool: string;
    readonly version: string;
    readonly args: Readonly<Record<string, unknown>>;
  };
}

export type HumanDecision =
  | { readonly decision: 'approved'; readonly actor: string; readonly reason?: string }
  | { readonly decision: 'rejected'; readonly actor: string; readonly reason: string; readonly code: string };

/** How a profile waits for a person. */
export interface WaitOptions {
  /**
   * Where the profile resumes (bounded JSON, as for {@link RunContext.checkpoint}) when the run must
   * move to a new history in the middle of this wait (its history reached the bound while signals
   * kept coming). The run then continues as new with the wait still pending; in the next generation
   * {@link RunContext.resume} is this value, and the profile must ask for the same wait again first
   * thing: it gets the same action back (same id, same expiry), with a decision given meanwhile.
   * Absent: such a wait ends the run `failed` with `run.history_limit` instead.
   */
  readonly resumeAt?: Record<string, unknown>;
  /**
   * Input waits only: the value the run takes when the input request expires unanswered (recorded as
   * `human.request_expired` and `human.decided` by `system`, code `input.expired`). Absent: an expired
   * input request ends the run `failed` with `input.expired`. Runs since
   * `agent-run-human-request-expiry-v1`; older runs' input requests never expire.
   */
  readonly expiryDefault?: string;
}

export interface ToolOptions {
  /** Pinned version; default the highest version of that name in the run's snapshot. */
  readonly version?: string;
  /** The model's proposal id, to link the observation back. */
  readonly proposalId?: string;
  /**
   * The least gate this call needs if it is a write (a routed profile passes its domain's gate): an
   * `allow` the policy gave without that much is raised to `require_confirmation` (`route.gate_enforced`),
   * so a catalogue's gate holds whatever the policy says. See `withGateFloor`.
   */
  readonly gate?: GateFloor;
}

/**
 * The surface profiles program against. Every call goes through the runner: schema check, policy,
 * budgets, confirmation, durable records. A rejected call returns an observation with status
 * `rejected` (the model can read why); it never throws for untrusted input.
 */
export interface RunContext {
  readonly runId: string;
  /** The task the run was started with. */
  readonly task: Readonly<Record<string, unknown>>;
  /**
   * Who the run is for (docs/authorization.md, "Who a run is for"): with `verified: true` the user,
   * tenant, kind and roles come from its signed start; `verified: false` is an anonymous run (an
   * unsigned start: no user); absent `verified`, a run from before identities with the claimed
   * `userId`/`tenantId`. A profile that acts for a person checks it here, never in `task`.
   */
  readonly requester: PolicySubject;
  /**
   * What the profile handed to {@link RunContext.checkpoint} before the run continued as new, or
   * undefined in the first generation. A profile resumes from it.
   */
  readonly resume: Readonly<Record<string, unknown>> | undefined;
  /**
   * The system instructions of the prompt bundle the run pinned for its profile (docs/control-plane.md),
   * or undefined when it pinned none: the profile then uses its own. The same in every generation.
   */
  readonly instructions?: string | undefined;
  /**
   * A safe point between steps (nothing pending); `resumeState` is also what the run view reads of
   * the profile (a routed run's route and plan). The runner may continue the run as new here,
   * carrying `resumeState` (bounded JSON) into the next generation; then this call does not return.
   */
  checkpoint(resumeState: Record<string, unknown>): Promise<void>;
  model(purpose: ModelPurpose, request: ModelRequest): Promise<ModelDecision>;
  tool(name: string, args: unknown, options?: ToolOptions): Promise<Observation>;
  /**
   * A tool call the model sent that is not a proposal (`ModelDecision.invalidToolCalls`): a `rejected`
   * observation with its code for the model to read; nothing runs. Counts one step and against the
   * duplicate-call guard (docs/runner.md, "Invalid tool calls").
   * @throws RunStop (ends the run `budget_exhausted`) when a step budget or the duplicate guard is exhausted.
   */
  invalidToolCall(call: InvalidToolCall): Observation;
  /** Tools the policy lets the model see now (presentation point), optionally restricted to names. */
  visibleTools(names?: readonly string[]): ToolDefinition[];
  confirm(request: ConfirmRequest, options?: WaitOptions): Promise<HumanDecision>;
  askHuman(request: ConfirmRequest, options?: WaitOptions): Promise<HumanDecision>;
  askInput(slot: string, prompt: string, options?: WaitOptions): Promise<string>;
  emit(type: string, data: Record<string, unknown>, classification?: DataClassification): void;
  /** The run's verified facts now (a copy): what the policy and the router decide on. Never throws. */
  facts(): PolicyFacts;
  /** `name@version` of the policy the run decides its calls under (recorded with route decisions). */
  readonly policyVersion: string;
  /** Record a verified fact the policy may rely on. Only facts derived from observed/verified artifacts. */
  recordFact(name: string, value: string | number | boolean, evidenceArtifactId: string): void;
  /**
   * Withdraw the verified fact `name` because it no longer holds (e.g. the customer turned to another
   * order, so `order.status` of the previous one must go), for `reason`, a short lowercase dotted code
   * (`order.switched`). The fact leaves the run's facts (the policy no longer sees it, and it can no
   * longer be {@link remember}ed) and stays withdrawn in later generations; `fact.withdrawn`
   * `{ name, reason }` records it. A fact the run does not hold: a no-op, no event. Never throws: a
   * name or reason that is not lowercase dotted (at most 100 characters), or a fact the runner keeps
   * itself (`taint.*`), withdraws nothing and records `fact.rejected` (`fact.invalid_withdrawal`).
   */
  withdrawFact(name: string, reason: string): void;
  /**
   * What earlier runs of this thread remembered (the newest entry per name, for the run's tenant and
   * user): verified facts with their provenance. Emits `memory.recalled`.
   */
  recall(): Promise<readonly MemoryEntry[]>;
  /**
   * Remember the verified fact `name` (recorded in this generation with {@link recordFact}) for later
   * runs of the thread, if its value is a boolean, a number or identifier-like text and the policy
   * allows `memory.write`. Never throws for a refusal: it is an event and the outcome.
   */
  remember(name: string, options?: { readonly ttlSeconds?: number }): Promise<RememberOutcome>;
  /** A profile-produced artifact: always `model` provenance (anything else is refused). */
  addModelArtifact(artifact: Omit<Artifact, 'provenance'> & { provenance?: string }): Artifact;
  artifact(id: string): Artifact | undefined;
  /**
   * Mark a node/step current (graph profiles); recorded in state and a `step.started` event. With
   * `attempt` (the harness's attempt of the node, 1, 2, …): `step.started` and `step.completed` carry
   * it and every event until `completeStep` (or the next `enterStep`) carries the attempt id
   * `<stepId>#<attempt>@<sequence of its step.started>` as `attemptId`, which this returns.
   */
  enterStep(stepId: string, attempt?: number): string | undefined;
  /**
   * Take up an attempt a previous generation entered (the run continued as new in the middle of a
   * wait): the events carry its `attemptId` again. Emits nothing.
   */
  continueAttempt(attemptId: string, attempt: number): void;
  completeStep(stepId: string): void;
  /**
   * Are the graph node checks in effect for this run: state patches checked against the graph's state
   * schema, `retry` limited per node with backoff, node attempts on events, the taken edge on
   * `route.decided`? A Temporal host answers with `patched('agent-run-graph-node-checks-v1')`, asked
   * once at the start of every graph run, so histories from before replay unchanged.
   */
  graphNodeChecks(): boolean;
  /**
   * Are the node and step contracts in effect for this run (docs/runner.md, "Step contracts"): node
   * contexts and deadlines, step and attempt ids on goal steps, `failed_retryable` attempts? Decided at
   * the start (`agent-run-step-contracts-v1`); asking records nothing. Never throws.
   */
  stepContracts(): boolean;
  /** The run's wall-clock deadline (ISO): its start plus its `deadlineSeconds` budget. */
  readonly deadline: string;
  /** Workflow time now (ISO; deterministic on replay). Never throws. */
  now(): string;
  /**
   * Has the run's cancellation been requested: an accepted `cancelRun`, or (runs since
   * `agent-run-config-pin-v1` on Temporal) a workflow cancellation? Never throws.
   */
  cancelRequested(): boolean;
  sleep(seconds: number): Promise<void>;
}
