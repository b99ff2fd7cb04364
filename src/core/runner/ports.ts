import type { TaintDigests } from '../guardrails/data-taint.js';
import type { ThreadMemoryPort } from './thread-memory.js';
import type { Artifact } from '../../contract/artifact.js';
import type { PinnedModelRoute } from '../../contract/model-routes.js';
import type { ToolDefinition, ToolEffect } from '../../contract/tool.js';
import type { AgentEvent } from './agent-event.js';
import type { RunState } from './run-state.js';

/** A message a profile adds to the conversation for the next model call. */
export interface ModelMessageInput {
  readonly role: 'system' | 'user' | 'tool';
  readonly content: string;
  /** For `tool` messages: the id of the tool call this answers. */
  readonly toolCallId?: string;
  /** Trust of the content; `untrusted` content is fenced as data by the model activity. */
  readonly trust?: 'system' | 'verified' | 'untrusted';
  /**
   * For `tool` messages: the invocation whose stored result is the content. The request then carries
   * this reference, not the body; the model activity reads the result from the evidence store.
   */
  readonly resultOf?: number;
  /**
   * Thread memory shown to the model (a `user` message with `verified` trust): the context item is of
   * kind `memory`, with this source and expiry (an expired entry is dropped from the request).
   */
  readonly memory?: { readonly sourceRef: string; readonly expiresAt?: string };
}

export type ModelPurpose = 'route' | 'extract' | 'plan' | 'decide' | 'verify' | 'respond' | 'summarize';

/** Input of the model activity: references and a compact request, never the transcript. */
export interface ModelCallInput {
  readonly runId: string;
  /** Model call number in the run: the message-group key, so a retried call is answered once. */
  readonly callSeq: number;
  readonly purpose: ModelPurpose;
  readonly modelRoute: string;
  /**
   * Runs with pinned model routes (docs/models.md): the digest of the route version the run pinned. The
   * worker refuses the call (`model.route_changed`) when its routes file has other content under it.
   */
  readonly routeDigest?: string;
  /** The call's place in its primary route's fallback list (absent or 0: the primary itself). */
  readonly fallback?: number;
  /**
   * Runs with pinned model routes: the route version (and its digest) of purpose `summarize`, which
   * the model activity asks for summaries of older tool observations (docs/context.md). Absent: the
   * call's own route.
   */
  readonly summarizeRoute?: { readonly route: string; readonly digest: string };
  /** Messages new since the previous call (bounded). Earlier groups are loaded from the store. */
  readonly newMessages: readonly ModelMessageInput[];
  /** Tools the model may see (`name@version`), already filtered by policy at presentation. */
  readonly toolKeys: readonly string[];
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** Events of the run not yet stored (the outbox), written before the call. */
  readonly events: readonly AgentEvent[];
}

/** A tool call as the model proposed it, parsed (not yet validated against the schema). */
export interface ToolProposal {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly args: unknown;
}

/** Compact decision returned by the model activity. */
export interface ModelDecision {
  readonly text: string;
  readonly toolCalls: readonly ToolProposal[];
  readonly stopReason: string;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  readonly costUsd: number;
  readonly providerModel: string;
  /** The provider that answered (`openai`, `anthropic`, `scripted`); absent in answers from before. */
  readonly provider?: string;
  /** True when the answer was served from the store (a retry after the call had completed). */
  readonly replayed: boolean;
  /** The context package of this call, stored by reference in the evidence store. */
  readonly context?: { readonly packageId: string; readonly digest: string };
  /**
   * The Temporal attempt of the activity that got the answer from the provider (1, 2, …); absent for
   * an answer served from the store and in answers from before it.
   */
  readonly attempt?: number;
  /**
   * Tool results first sent in this call that the input guardrail flagged (tool output is scanned
   * like user input, docs/context.md): at most 20, never the matched text. Absent when none, and in
   * answers from before the scan.
   */
  readonly toolOutputFindings?: readonly ToolOutputFinding[];
}

/** One tool result the input guardrail flagged: where it came from and what it found. */
export interface ToolOutputFinding {
  /** The result's source, `tool://<tool>@<version>/call/<id>[/invocation/<seq>]`. */
  readonly sourceRef: string;
  readonly verdict: 'flag' | 'block';
  readonly reasonCodes: readonly string[];
}

/** Input of the tool activity. */
export interface ToolCallInput {
  readonly runId: string;
  readonly seq: number;
  readonly tool: string;
  readonly version: string;
  readonly effect: ToolEffect;
  readonly args: Readonly<Record<string, unknown>>;
  readonly argsDigest: string;
  readonly idempotencyKey: string;
  /**
   * The attempt of a write the run tries again after an attempt was settled not applied (2, 3, ...,
   * under the same idempotency key). Absent on the first attempt: the activity's own attempt number
   * is used then.
   */
  readonly attempt?: number;
  readonly events: readonly AgentEvent[];
}

/** Bounded result of a tool activity. Artifacts carry observed/verified provenance from executors. */
export interface ToolCallResult {
  readonly status: 'succeeded' | 'failed_terminal';
  readonly output?: Readonly<Record<string, unknown>>;
  readonly artifacts: readonly Artifact[];
  readonly externalId?: string;
  readonly errorCode?: string;
  readonly errorMessage?: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  /**
   * Digests of the secrets and personal data the whole result carried (output and artifacts, before
   * any truncation), computed by the activity; absent from results recorded before data taint.
   */
  readonly taint?: TaintDigests;
  /**
   * The attempt that produced this result: the Temporal activity attempt (1, 2, …), or the run's own
   * attempt of a write it tries again. Absent in results of activities from before it.
   */
  readonly attempt?: number;
}

/** How a tool activity ended, from the workflow's point of view. */
export type ToolActivityOutcome =
  | { readonly kind: 'completed'; readonly result: ToolCallResult }
  /** Failed for good (non-retryable, or retries of a read exhausted). */
  | { readonly kind: 'failed'; readonly code: string; readonly message: string }
  /** Timed out or lost its worker: the effect may or may not have happened. */
  | { readonly kind: 'lost'; readonly message: string }
  | { readonly kind: 'cancelled' };

/** What the evidence store (and the tool's reconciler) says about an invocation whose activity was lost. */
export type WriteResolution =
  | { readonly kind: 'result_recorded'; readonly result: ToolCallResult }
  | { readonly kind: 'no_intent' }
  | { readonly kind: 'reconciled_succeeded'; readonly result: ToolCallResult }
  | { readonly kind: 'reconciled_not_applied' }
  | { readonly kind: 'unknown' };

/** A person's decision on a write whose outcome was unknown, to be recorded in the evidence store. */
export interface OperatorResolutionInput {
  readonly call: ToolCallInput;
  readonly outcome: 'succeeded' | 'failed' | 'not_applied';
  readonly actor: string;
  readonly externalId?: string;
  readonly evidence: Readonly<Record<string, unknown>>;
}

/**
 * What the evidence store made of an operator's decision: `recorded` (it is the invocation's result
 * now), or `result_recorded` when the store already held a result (the lost activity's executor
 * finished after all): that result stands and the person's decision is not recorded.
 */
export type OperatorResolutionOutcome =
  { readonly kind: 'recorded' } | { readonly kind: 'result_recorded'; readonly result: ToolCallResult };

/** Records an operator's decision (see {@link RunnerPorts.operatorResolutionRecorder}). */
export type OperatorResolutionRecorder = (
  input: OperatorResolutionInput,
) => Promise<OperatorResolutionOutcome>;

/**
 * Everything the runner needs from its host. The workflow implements it with Temporal APIs
 * (activities, timers, conditions); unit tests implement it in memory.
 */
export interface RunnerPorts {
  /** Current time from the workflow clock (ISO). */
  now(): string;
  /**
   * One model call on one route. `route`: what the run pinned of that route version (a Temporal host
   * takes its attempts and timeouts from it); absent for runs without pinned routes. Rejects with an
   * error carrying the stable `code` of the failure and, when the failed attempt was billed (a
   * refusal), `billed` (`BilledUsage`, model-routing.ts).
   */
  callModel(input: ModelCallInput, route?: PinnedModelRoute): Promise<ModelDecision>;
  callTool(input: ToolCallInput, options: { summary: string }): Promise<ToolActivityOutcome>;
  resolveLostInvocation(input: ToolCallInput): Promise<WriteResolution>;
  /**
   * How this run records an operator's reconciliation in the evidence store, or undefined when it
   * does not (a run whose history predates the recording, a host without a store): the runner then
   * keeps the decision in its own state and events only. Asked once, before the run waits for the
   * decision. Optional for in-memory hosts.
   */
  operatorResolutionRecorder?(): OperatorResolutionRecorder | undefined;
  /**
   * May this run try a write again once an attempt is settled not applied (or failed before its
   * executor ran), and record its recovery decisions as events? Asked when a write attempt does not
   * complete; a Temporal host answers with `patched()`, so histories from before replay unchanged.
   * Optional: in-memory hosts leave it out (no recovery).
   */
  writeRecovery?(): boolean;
  /**
   * When every automatic attempt of an approved write ended without effect, is a person asked
   * (retry, give up, or done outside) instead of the write failing? Asked only then; a Temporal host
   * answers with `patched()`. Optional: in-memory hosts leave it out (the write fails, as before).
   */
  writeExhaustionToPerson?(): boolean;
  /**
   * Are values from outside over their bounds (contract/json-bounds.ts) refused: decision payloads
   * (`signal.too_large`) and tool arguments (`tool.arguments_too_large`)? Asked only when one is; a
   * Temporal host answers with `patched()`. Optional: in-memory hosts leave it out (not refused).
   */
  boundedValues?(): boolean;
  /**
   * Are the graph node checks in effect (see `RunContext.graphNodeChecks`)? Asked by a graph profile
   * before its first node; a Temporal host decides it once at the run's start with `patched()` (before
   * any local activity, so it replays in the same task). Optional: hosts without a history (in-memory)
   * leave it out and the checks are off.
   */
  graphNodeChecks?(): boolean;
  /**
   * Store the outbox now. `last`: nothing follows in this workflow execution (the run ended, or it
   * continues as new), so a Temporal host may use a local activity; a flush before a wait may not
   * (a decision asked after a local activity is fragile on replay).
   */
  flushEvents(events: readonly AgentEvent[], options?: { readonly last?: boolean }): Promise<void>;
  /**
   * Is a write that would carry tainted data (a secret or personal data a tool returned earlier) held
   * for a person? Asked only when one would be; a Temporal host answers with `patched()`, so histories
   * from before replay unchanged. Optional: in-memory hosts leave it out (not held).
   */
  dataTaint?(): boolean;
  /**
   * Thread memory (docs/context.md, "Memory"), or undefined when the host keeps none. Asked only when
   * a profile recalls or remembers. Optional: in-memory hosts may leave it out.
   */
  memory?(): ThreadMemoryPort | undefined;
  /** Wait until `ready()` is true or `timeoutMs` passes; resolves false on timeout. */
  waitUntil(ready: () => boolean, timeoutMs?: number): Promise<boolean>;
  sleep(ms: number): Promise<void>;
  /** Called after every state change: search attributes, current details. */
  publish(state: RunState): void;
  /** The pinned tool definitions (model-visible). */
  readonly tools: readonly ToolDefinition[];
  /**
   * Should the run continue as new at this checkpoint (history long enough)? Optional: hosts without
   * history limits (unit tests) leave it out and checkpoints never continue as new.
   */
  shouldContinueAsNew?(): boolean;
  /**
   * Asked while the run waits for a person, after every batch of signals: the history's size in
   * bytes when it has reached the bound for a waiting run (the wait then moves to a new history or
   * ends, see `WAIT_HISTORY_BOUND_BYTES`), else undefined. A Temporal host reads the size of the
   * history and, only once it is over the bound, asks `patched()`, so older histories replay
   * unchanged. Must be cheap and deterministic. Optional: hosts without history limits leave it out.
   */
  historyOverWaitBound?(): number | undefined;
}
