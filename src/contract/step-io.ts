/**
 * The shapes of one step across the workflow/activity boundary: what the runner asks of a model call
 * or a tool call, and what comes back (the activities' inputs and outputs are built from these).
 * Types only.
 */
import type { Artifact } from './artifact.js';
import type { ToolEffect } from './tool.js';
import type { AgentEvent } from './agent-event.js';
import type { RetrievalAccess } from './retrieval.js';
import type { RunConfigPin } from './run-config.js';

/**
 * Why part of a value was not scanned for tainting data: `scan_limit` (its strings hold more than
 * `GUARDRAIL_MAX_SCAN_CHARS` (guardrails/scan-limit.ts) characters; those past it were not read), `depth` or `strings`
 * (nested deeper, or more strings, than the walk visits).
 */
export type TaintUnscanned = 'scan_limit' | 'depth' | 'strings';

/** Digests of the tainting values a tool result carried (16 hex characters of SHA-256 each). */
export interface TaintDigests {
  readonly secret: readonly string[];
  readonly personal: readonly string[];
  /**
   * Present when part of the value was not scanned, and why: data there is not remembered, so a
   * later write carrying it is not held. Absent when every string was read in full.
   */
  readonly unscanned?: TaintUnscanned;
}

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
  /** JSON Schema the final text must satisfy; checked by the activity unless `outputCheck` is `caller`. */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /**
   * `caller`: the `outputSchema` goes to the provider, but the activity does not check the answer
   * against it (no `model.output_invalid`): the workflow caller checks the text itself. Absent: the
   * activity checks, as before. Present only when asked.
   */
  readonly outputCheck?: 'caller';
  /**
   * `report`: a tool call whose name was not offered or whose arguments are not a JSON object comes
   * back in {@link ModelDecision.invalidToolCalls} instead of failing the call
   * (`model.unknown_tool`, `model.invalid_tool_arguments`). Absent: the call fails, as before. Asked
   * by a profile that reads them (the goal profile), on runs since `agent-run-invalid-tool-calls-v1`.
   */
  readonly invalidToolCalls?: 'report';
  /**
   * `priority`: the request follows seed 004's priority order with verified observations marked
   * `verified` (request packages `context/v4`, docs/context.md). Absent: `context/v3`, as before. Sent
   * on runs since `agent-run-context-priority-v1`.
   */
  readonly contextOrder?: 'priority';
  /**
   * Runs since `agent-run-worker-refusal-v1`: a worker without the pinned route (or with another
   * version of it) refuses the call non-retryably (`model.unknown_route`, `model.route_changed`), and
   * the run schedules it again for another worker without spending the call's attempts.
   */
  readonly workerRefusal?: true;
  /**
   * Runs since `agent-run-config-pin-v1`: the run's config pin (run-config.ts). A worker whose
   * configuration under it has another digest refuses the call before anything is recorded
   * (`worker.config_changed`, non-retryable), and so does one that cannot resolve the call's
   * summarize route; the run schedules the call again without spending its attempts and records
   * `model.worker_refused` once a worker served it. Set by the Temporal host's model port.
   */
  readonly configPin?: RunConfigPin;
  /**
   * `withhold`: tool output the input guardrail flags is not sent; a reference and a notice stand in
   * for it (the run's policy asks, `ContextPolicy.flaggedToolOutput`). Only with `contextOrder`.
   * Absent: flagged output is sent fenced, as before.
   */
  readonly flaggedToolOutput?: 'withhold';
  /**
   * Retrieve references for this call (`ContextPolicy.retrieval`): the run's verified tenant (from its
   * signed start, never from the model or the caller's fields), how many, the most sensitive label.
   * Only with `contextOrder`. Absent: no retrieval.
   */
  readonly retrieval?: {
    readonly tenantId: string;
    readonly limit: number;
    readonly maxAccess: RetrievalAccess;
  };
  /** Events of the run not yet stored (the outbox), written before the call. */
  readonly events: readonly AgentEvent[];
}

/** Why a tool call the model sent is not a proposal: the name was not offered, or the arguments are not a JSON object. */
export type InvalidToolCallCode =
  'tool.not_offered' | 'tool.arguments_not_json' | 'tool.arguments_not_object';

/**
 * A tool call the model sent that the gateway could not take as a proposal (only when the call input
 * asked with `invalidToolCalls: 'report'`). Model output, so untrusted and bounded: the name as the
 * model sent it (at most 64 characters), a message written by the harness, and a digest and the
 * length of the argument text, never the text itself. Nothing is ever run for it.
 */
export interface InvalidToolCall {
  /** The provider's id of the call (at most 64 characters). */
  readonly id: string;
  /** The tool name as the model sent it (the provider-safe form, e.g. `order_read__v1`), cut to 64 characters. */
  readonly name: string;
  /** `name@version` of the offered tool the name stands for; absent for `tool.not_offered`. */
  readonly tool?: string;
  readonly code: InvalidToolCallCode;
  /** What was wrong and what to send instead, written by the harness (at most 300 characters). */
  readonly message: string;
  /** `sha256:` of the argument text as the model sent it: the same text gives the same digest. */
  readonly argsDigest: string;
  /** Characters of the argument text. */
  readonly argsChars: number;
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
  /**
   * Tool calls of this answer that are not proposals (at most 16, in the order the model sent them):
   * present only when the call input asked (`invalidToolCalls: 'report'`) and there were any.
   */
  readonly invalidToolCalls?: readonly InvalidToolCall[];
  /**
   * The interval heads (`every`, docs/evidence-chain.md) of the run's events stored with the call, when
   * its worker has an attestation key. Only the history keeps them: the workflow reads nothing of them.
   */
  readonly heads?: readonly string[];
  /**
   * Set by the Temporal host's model port, never by the activity (runs with a config pin): workers
   * refused the call `refusals` times before one answered it, the last with `code`.
   */
  readonly workerRefused?: { readonly refusals: number; readonly code: string };
}

/** One tool result the input guardrail flagged: where it came from and what it found. */
export interface ToolOutputFinding {
  /** The result's source, `tool://<tool>@<version>/call/<id>[/invocation/<seq>]`. */
  readonly sourceRef: string;
  readonly verdict: 'flag' | 'block';
  readonly reasonCodes: readonly string[];
  /** Present when the output was withheld from the model (the run's policy asks); else it was sent fenced. */
  readonly withheld?: true;
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
  /**
   * The digest of the tool definition the run pinned (`definitionDigest` of the registry; runs since
   * `agent-run-tool-definition-pin-v1`). A worker whose definition of this name and version has
   * another digest refuses the call before anything is recorded (`worker.tool_definition_changed`):
   * with {@link workerRefusal} a read or a write, rescheduled by the run without spending an attempt;
   * without it only a write's attempt, as a `tool.not_started` the run tries again (a read is checked at
   * the generation's start with every tool). Absent: matched by name and version only.
   */
  readonly definitionDigest?: string;
  /**
   * Record a read's failed attempt in the evidence store: `failed_retryable` when the activity will be
   * tried again, `failed_terminal` on its last attempt (runs since `agent-run-step-contracts-v1`).
   * Absent: a failed read attempt leaves only its intent, as before.
   */
  readonly recordFailedAttempts?: true;
  /**
   * Runs since `agent-run-worker-refusal-v1`: a worker whose definition has another digest than
   * {@link definitionDigest} refuses the call, read or write, before anything is recorded, with a
   * non-retryable `worker.tool_definition_changed`; the run schedules the call again (after a
   * backoff, for another worker to take) without counting it as an attempt of the tool.
   */
  readonly workerRefusal?: true;
  /**
   * Runs since `agent-run-config-pin-v1`: the run's config pin (run-config.ts). A worker whose
   * configuration under it has another digest refuses the call, read or write, before anything is
   * recorded (`worker.config_changed`, non-retryable); the run schedules it again as for
   * {@link workerRefusal}. Set by the Temporal host's tool port.
   */
  readonly configPin?: RunConfigPin;
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
  /**
   * Signed chain heads, when its worker has an attestation key (docs/evidence-chain.md): the interval
   * heads (`every`) of the events stored with the call, and a write's heads at its commit points
   * (`write.before`, `write.after`). Only the history keeps them: the workflow reads nothing of them.
   */
  readonly heads?: readonly string[];
}

/** How a tool activity ended, from the workflow's point of view. */
export type ToolActivityOutcome =
  | {
      readonly kind: 'completed';
      readonly result: ToolCallResult;
      /** How often workers refused the call before one served it (`ToolCallInput.workerRefusal`). */
      readonly workerRefusals?: number;
      /** The reason of the last refusal (`worker.tool_definition_changed`, `worker.config_changed`). */
      readonly refusedWith?: string;
    }
  /** Failed for good (non-retryable, or retries of a read exhausted). */
  | {
      readonly kind: 'failed';
      readonly code: string;
      readonly message: string;
      readonly workerRefusals?: number;
      readonly refusedWith?: string;
    }
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

/** Records an operator's decision (see `RunnerPorts.operatorResolutionRecorder` (workflows/runner/ports.ts)). */
export type OperatorResolutionRecorder = (
  input: OperatorResolutionInput,
) => Promise<OperatorResolutionOutcome>;
