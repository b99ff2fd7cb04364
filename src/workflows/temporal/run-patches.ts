import { patched, workflowInfo } from '@temporalio/workflow';
import {
  MARKER_FREE_START,
  MARKER_FREE_START_MEMO_KEY,
  START_FEATURES_MEMO_KEY,
} from '../../contract/visibility.js';

/**
 * Every `patched()` id of `agentRun`, and the baseline that stands for all of them at once.
 *
 * Each id guards a behaviour added after runs were already recorded without it: a history that has
 * the id's marker takes the new path on replay, one without takes the old path. A run that asks an id
 * records a marker and, from the SDK core, an upsert of `TemporalChangeVersion`: two history events
 * per id. Before the baseline a run asked five at its start (ten events) and more on some paths.
 *
 * A run on the first baseline asks {@link BASELINE_PATCH} once, first of all, and from then on takes
 * every behaviour below without asking its id (no marker, no upsert): two events in all. Histories
 * recorded before the baseline have no baseline marker, so replay answers it `false` and the run asks
 * each id where it always did, as recorded. Patches added after the baseline are asked with
 * `patched()` as usual (they are not in {@link BaselinePatchId}); the next baseline can fold them in.
 *
 * A run started with the marker-free memo ({@link RunPatches.decide}, the third baseline) takes the
 * second baseline's behaviour and records no marker at all.
 *
 * Retiring old paths: once no run recorded before the baseline can still be in flight (the longest
 * run's deadline has passed since every worker ran this code) and the histories in
 * test/fixtures/histories from before it are retired, `RunPatches.on` can return `true` without
 * asking and the old paths can be deleted (docs/history-cost.md, "Retiring patches").
 */

/** Continue-as-new checkpoints. */
export const CONTINUE_AS_NEW_PATCH = 'agent-run-continue-as-new';
/** A bounded carried state (asked once, when a run continues as new). */
export const BOUNDED_CARRY_PATCH = 'agent-run-bounded-carry-v1';
/** Input and output guardrails. */
export const GUARDRAILS_PATCH = 'agent-run-guardrails-v1';
/** Model calls and events of composing a blocked output again (asked only on that path). */
export const OUTPUT_RETRY_PATCH = 'agent-run-output-retry-v1';
/** Observed object ids exempt from the output's personal-data checks (asked only when it matters). */
export const TRUSTED_IDS_PATCH = 'agent-run-trusted-identifiers-v1';
/** The deadline during a reconciliation wait escalates and keeps waiting (asked only then). */
export const OVERDUE_WRITE_PATCH = 'agent-run-overdue-write-v1';
/** A response over the guardrail scan limit is blocked (asked only for such a response). */
export const OUTPUT_TEXT_LIMIT_PATCH = 'agent-run-output-text-limit-v1';
/** A failed model call takes a fallback of its pinned route (asked only when one applies). */
export const MODEL_FALLBACK_PATCH = 'agent-run-model-fallback-v1';
/** Carried state is refused on a run that did not continue as new (asked only on that path). */
export const CARRIED_ONLY_PATCH = 'agent-run-carried-only-v1';
/** A run whose input names a policy its profile does not list is refused (asked only on that path). */
export const POLICY_BINDING_PATCH = 'agent-run-policy-binding-v1';
/** The tool snapshot at the start and the last event flush run as local activities. */
export const LOCAL_BOOKKEEPING_PATCH = 'agent-run-local-bookkeeping-v1';
/** Signed decisions, authorization rules and enforced obligations (docs/authorization.md). */
export const SIGNED_DECISIONS_PATCH = 'agent-run-signed-decisions-v1';
/** Graph node checks (src/workflows/runner/graph-profile.ts); asked only for graph profiles. */
export const GRAPH_NODE_CHECKS_PATCH = 'agent-run-graph-node-checks-v1';
/** The event envelope and catalogue (docs/events.md). */
export const EVENT_ENVELOPE_PATCH = 'agent-run-event-envelope-v1';
/** Operator reconciliations recorded in the evidence store by a bookkeeping activity. */
export const OPERATOR_RESOLUTION_PATCH = 'agent-run-operator-resolution-v1';
/** Write recovery (retry_attempt after `not_applied`); asked only when a write attempt does not complete. */
export const WRITE_RECOVERY_PATCH = 'agent-run-write-recovery-v1';
/** A write whose automatic attempts ran out goes to a person; asked only when they run out. */
export const WRITE_EXHAUSTION_PATCH = 'agent-run-write-exhaustion-v1';
/** Decision payloads over their bounds are refused (asked only when one is). */
export const BOUNDED_VALUES_PATCH = 'agent-run-bounded-values-v1';
/** A waiting run moves to a new history once it reaches the wait bound (asked only then). */
export const WAIT_HISTORY_BOUND_PATCH = 'agent-run-wait-history-bound-v1';
/** A write carrying data a tool returned earlier is held for a person (asked only then). */
export const DATA_TAINT_PATCH = 'agent-run-data-taint-v1';

/**
 * Carried state bound to the generation that handed it over; cron runs and workflow retries refused
 * (carried-origin.ts). Not in the baseline: asked only on the refusal path, so a history recorded
 * before it (which took that path) replays unchanged, and a run that is not refused records nothing.
 */
export const CARRIED_BINDING_PATCH = 'agent-run-carried-binding-v1';

/**
 * Tenant and delegation scope of signed decisions (decision-token.ts `scoped`, delegation-scope.ts):
 * decided once at the start, without a marker when the start memo lists it ({@link RunPatches.feature}).
 */
export const TRUST_SCOPE_PATCH = 'agent-run-trust-scope-v1';

/**
 * Tool calls a goal model sent with a name it was not offered or arguments that are not a JSON object
 * become rejected observations the model reads, instead of failing the run (`model.unknown_tool`,
 * `model.invalid_tool_arguments`): the model activity is asked to report them (`invalidToolCalls:
 * 'report'` in its input). Decided once at the start of a goal run, without a marker when the start
 * memo lists it ({@link RunPatches.feature}); a history without it keeps failing such calls.
 */
export const INVALID_TOOL_CALLS_PATCH = 'agent-run-invalid-tool-calls-v1';

/**
 * A lost write attempt settled `not_applied` by the evidence store or the reconciler is tried again
 * automatically only when the tool's definition is `idempotentByKey`; for any other write a person is
 * asked first (`write.not_idempotent`, waiting reason `write_not_idempotent`). Not in the baseline:
 * asked only on that path (a non-idempotent write's settlement, under write recovery), so a history
 * recorded before it (which retried there) replays unchanged, and a run that never takes the path
 * records nothing.
 */
export const WRITE_RETRY_IDEMPOTENCY_PATCH = 'agent-run-write-retry-idempotency-v1';

/**
 * Every `policy.decided` event names the rules that decided (`rules`): the policy bundle the run pinned
 * for its policy (key, digest, target), or the policy in code. Decided once at the start, without a
 * marker when the start memo lists it ({@link RunPatches.feature}); a history without it records
 * decisions without `rules` (their events are the same as before).
 */
export const DECISION_RULES_PATCH = 'agent-run-decision-rules-v1';

/**
 * Each tool call's activity input carries the digest of the definition the run pinned
 * (`definitionDigest`); a worker whose definition of that name and version differs refuses a write's
 * attempt before anything is recorded (`worker.tool_definition_changed`). Decided once at the start,
 * without a marker when the start memo lists it ({@link RunPatches.feature}); a history without it
 * sends no digest (matched by name and version, as before).
 */
export const TOOL_DEFINITION_PIN_PATCH = 'agent-run-tool-definition-pin-v1';

/**
 * Each `model.completed` event names the context package the call sent (`context: { packageId,
 * digest }`, from the model activity's answer; absent for an answer served from the store). Decided
 * once at the start, without a marker when the start memo lists it ({@link RunPatches.feature}).
 */
export const MODEL_CONTEXT_REF_PATCH = 'agent-run-model-context-ref-v1';

/**
 * An approver may answer a decision request with a question (`requestMoreInfo` signal): the run asks
 * its requester, waits in `awaiting_input`, and then asks for the decision again. Decided once at the
 * start, without a marker when the start memo lists it ({@link RunPatches.feature}); a history without
 * it refuses the signal (`signal.not_supported`) and offers only approve and reject.
 */
export const REQUEST_MORE_INFO_PATCH = 'agent-run-request-more-info-v1';

/**
 * Reconcile and input requests expire like approvals, each with a recorded outcome (docs/signals.md,
 * "Expiry"). Decided once at the start, without a marker when the start memo lists it; a history
 * without it waits for them without a timer, as before.
 */
export const HUMAN_REQUEST_EXPIRY_PATCH = 'agent-run-human-request-expiry-v1';

/**
 * Facts carry a version that goes up by one on each change (fact-versions.ts); verified facts are
 * shown as versioned refs (`fact://<name>@v<version>`) and `fact.recorded` names the version and the
 * observation (invocation) that established it. Decided once at the start, without a marker when the
 * start memo lists it; a history without it shows `fact://name=value` as before.
 */
export const VERSIONED_FACTS_PATCH = 'agent-run-versioned-facts-v1';

/**
 * Model calls ask for seed 004's context priority order (`contextOrder: 'priority'`, request packages
 * `context/v4`: verified observations marked `verified` and sent after the task, docs/context.md).
 * Decided once at the start, without a marker when the start memo lists it ({@link RunPatches.feature});
 * a history without it sends no `contextOrder` (packages `context/v3`, as before).
 */
export const CONTEXT_PRIORITY_PATCH = 'agent-run-context-priority-v1';

/**
 * A call of a read declared `fast` (`ToolDefinition.fast`) that its policy allowed without asking
 * anyone runs as a local activity in the workflow task that decided it (docs/runner.md, "Fast path").
 * Decided once at the start, without a marker when the start memo lists it ({@link RunPatches.feature});
 * a history without it runs every read as a regular activity, as before.
 */
export const FAST_PATH_PATCH = 'agent-run-fast-path-v1';

/**
 * Node and step contracts (docs/runner.md, "Step contracts"): a graph node gets a node context
 * (deadline, attempt id, cancellation) and fails past its deadline (`graph.node_deadline`); goal model
 * turns and tool calls carry step and attempt ids; a node or tool attempt that will be tried again is
 * recorded `failed_retryable`. Decided once at the start, without a marker when the start memo lists
 * it ({@link RunPatches.feature}); a history without it records none of these.
 */
export const STEP_CONTRACTS_PATCH = 'agent-run-step-contracts-v1';

/**
 * A run a budget ends after writes took effect (a deadline that passed while a person reconciled a
 * write, a step budget after the write) composes the customer's answer and its terminal reason says
 * what it delivered (`outcome: 'delivered'`, the applied writes; `run.outcome_delivered`). Decided once
 * at the start, without a marker when the start memo lists it ({@link RunPatches.feature}); a history
 * without it ends such runs without an answer, as before.
 */
export const DELIVERED_OUTCOME_PATCH = 'agent-run-delivered-outcome-v1';

/**
 * Tool and model calls ask workers to refuse what they cannot serve as pinned (`workerRefusal`): a
 * worker with another definition digest refuses a read or a write before anything is recorded,
 * non-retryable (`worker.tool_definition_changed`), one without the pinned model route refuses the
 * model call (`model.unknown_route`, `model.route_changed`), and the run schedules the call again
 * for another worker without spending its attempts (tool-call-port.ts, model-call-port.ts). Decided
 * once at the start, without a marker when the start memo lists it ({@link RunPatches.feature}); a
 * history without it refuses only writes, as `tool.not_started`, and model calls with retryable refusals.
 */
export const WORKER_REFUSAL_PATCH = 'agent-run-worker-refusal-v1';

/**
 * A finished run's last event is `run.sealed` (`{ status, events }`), stored by its last flush, whose
 * signed head is the run's seal (docs/evidence-chain.md, "The seal"). Decided once at the start,
 * without a marker when the start memo lists it ({@link RunPatches.feature}); a history without it
 * ends with its terminal event, as before.
 */
export const RUN_SEAL_PATCH = 'agent-run-seal-v1';

/**
 * The run's frame without its extra promises (run-frame.ts): the deadline is one timer with no
 * cancellation scope of its own, and the last flush runs after the run's scope without an outer
 * non-cancellable scope (shielded only when a cancellation reaches it). The same commands and events;
 * fewer promises in the sandbox. Decided once at the start, without a marker when the start memo lists
 * it ({@link RunPatches.feature}); a history without it keeps the scopes, as before.
 */
export const LEAN_FRAME_PATCH = 'agent-run-lean-frame-v1';

/**
 * A run pins its configuration run-scoped (docs/rolling-deploys.md, "The config pin"): at its first
 * start the worker returns the digest of what the run depends on that no other pin covers (its model
 * route's definition), recorded as `versions.configDigest`
 * and carried across continue-as-new; every tool and model call carries the pin, and a worker with
 * another configuration under it refuses the call (`worker.config_changed`), as does one that cannot
 * resolve a model call's summarize route; the run reschedules refusals as for
 * {@link WORKER_REFUSAL_PATCH} and records `model.worker_refused` for model calls. A graph node's
 * `cancelled` also turns on for a Temporal workflow cancellation (not only `cancelRun`). Decided once at the
 * start, without a marker when the start memo lists it ({@link RunPatches.feature}); a history without
 * it records the worker's whole config digest, compared nowhere, as before.
 */
export const CONFIG_PIN_PATCH = 'agent-run-config-pin-v1';

/**
 * A run's start token is judged at the time the Temporal server accepted the start (the execution
 * chain's start time, `workflowInfo().startTime`, the time of its `WorkflowExecutionStarted` event), not
 * at its first workflow task's: a token that was valid when the start reached the server stays valid
 * however long the run waits for a worker (docs/authorization.md, "Who a run is for"). Decided once at
 * the start, without a marker when the start memo lists it ({@link RunPatches.feature}); a history
 * without it verifies the token at the first workflow task's time, as before.
 */
export const START_TOKEN_ACCEPTED_PATCH = 'agent-run-start-token-accepted-v1';

/**
 * The step activities take the third step format (docs/history-cost.md, "Bytes per step: the third
 * step format"): `callModelV3` and `runToolV3`, whose inputs and batches leave out the run's flags and
 * config pin, the goal steps' ids and the events' default data (compact-step-input-v3.ts,
 * packed-events-v3.ts); the activity restores exactly what `callModelV2` and `runToolV2` store. Only
 * with the second baseline's header by reference. Decided once at the start, without a marker when the
 * start memo lists it ({@link RunPatches.feature}); a history without it keeps the second names, as
 * before.
 */
export const STEP_FORMAT_V3_PATCH = 'agent-run-step-format-v3';

/**
 * A model call on a pinned route version that declares `fast` (docs/models.md, "Fast model routes")
 * is tried first as a local activity in the workflow task that decided it, one try bounded by the
 * route's `fast.timeoutMs`; any failure of that try falls back to the regular model activity
 * (model-call-port.ts). Decided once at the start, without a marker when the start memo lists it
 * ({@link RunPatches.feature}); a history without it runs every model call as a regular activity, as before.
 */
export const FAST_MODEL_PATCH = 'agent-run-fast-model-v1';

/** Behaviours a start memo may ask for without a marker ({@link START_FEATURES_MEMO_KEY}). */
export type StartFeatureId =
  | typeof TRUST_SCOPE_PATCH
  | typeof INVALID_TOOL_CALLS_PATCH
  | typeof DECISION_RULES_PATCH
  | typeof TOOL_DEFINITION_PIN_PATCH
  | typeof MODEL_CONTEXT_REF_PATCH
  | typeof REQUEST_MORE_INFO_PATCH
  | typeof HUMAN_REQUEST_EXPIRY_PATCH
  | typeof VERSIONED_FACTS_PATCH
  | typeof CONTEXT_PRIORITY_PATCH
  | typeof FAST_PATH_PATCH
  | typeof STEP_CONTRACTS_PATCH
  | typeof DELIVERED_OUTCOME_PATCH
  | typeof WORKER_REFUSAL_PATCH
  | typeof RUN_SEAL_PATCH
  | typeof LEAN_FRAME_PATCH
  | typeof CONFIG_PIN_PATCH
  | typeof START_TOKEN_ACCEPTED_PATCH
  | typeof STEP_FORMAT_V3_PATCH
  | typeof FAST_MODEL_PATCH;

/** The ids the baseline stands for. */
export const BASELINE_PATCH_IDS = [
  CONTINUE_AS_NEW_PATCH,
  BOUNDED_CARRY_PATCH,
  GUARDRAILS_PATCH,
  OUTPUT_RETRY_PATCH,
  TRUSTED_IDS_PATCH,
  OVERDUE_WRITE_PATCH,
  OUTPUT_TEXT_LIMIT_PATCH,
  MODEL_FALLBACK_PATCH,
  CARRIED_ONLY_PATCH,
  POLICY_BINDING_PATCH,
  LOCAL_BOOKKEEPING_PATCH,
  SIGNED_DECISIONS_PATCH,
  GRAPH_NODE_CHECKS_PATCH,
  EVENT_ENVELOPE_PATCH,
  OPERATOR_RESOLUTION_PATCH,
  WRITE_RECOVERY_PATCH,
  WRITE_EXHAUSTION_PATCH,
  BOUNDED_VALUES_PATCH,
  WAIT_HISTORY_BOUND_PATCH,
  DATA_TAINT_PATCH,
] as const;

export type BaselinePatchId = (typeof BASELINE_PATCH_IDS)[number];

/**
 * One marker for every id in {@link BASELINE_PATCH_IDS}. A run that records it also publishes no
 * `queued` status (the starter's `created` is followed by `running` directly: one search-attribute
 * upsert less).
 */
export const BASELINE_PATCH = 'agent-run-baseline-v1';

/**
 * The second baseline: everything {@link BASELINE_PATCH} stands for, and the step activities under
 * their second names (`callModelV2`, `runToolV2`), whose batches name the run header by reference
 * once an activity that carried it has completed (docs/history-cost.md). Asked first; a run that
 * records it never asks the first baseline. Histories with the first baseline (or none) answer it
 * `false` on replay and keep `callModel`/`runTool` with the header in every batch.
 */
export const BASELINE_V2_PATCH = 'agent-run-baseline-v2';

/**
 * The patch decisions of one workflow execution (one generation of a run).
 *
 * Failure semantics: none of its own. Like `patched()`, it must be used from workflow code only, and
 * {@link RunPatches.decide} must be called before anything else that records a command, so the
 * baseline marker is the first command of a new execution.
 */
export class RunPatches {
  private constructor(
    /** This execution runs on a baseline: every baseline id is on, none is asked. */
    readonly baseline: boolean,
    /** This execution runs on the second baseline: step activities by their second names, headers by reference. */
    readonly headerByRef: boolean,
  ) {}

  /**
   * Ask the baselines, the second first (a new execution records only its marker; replay answers
   * from the history).
   *
   * A run whose start memo asks for a marker-free start ({@link MARKER_FREE_START_MEMO_KEY}, set by
   * `startAgentRun`) is on the third baseline: a new execution takes the second baseline's behaviour
   * and asks nothing, so it records no marker and the SDK no `TemporalChangeVersion` upsert. On replay
   * the baselines are still asked: an older worker that ignored the memo may have taken the first
   * workflow task and recorded its marker, and `patched()` answers from the history without recording
   * anything. A history with neither marker is the third baseline's own. A worker from before the
   * first baseline records its own per-feature markers and start events, which no baseline path
   * replays: a marker-free run whose first task such a worker took cannot be replayed by any newer
   * worker (it is stuck). Do not run those workers beside a starter of this code
   * (docs/rolling-deploys.md).
   */
  static decide(): RunPatches {
    const info = workflowInfo();
    const markerFree = info.memo?.[MARKER_FREE_START_MEMO_KEY] === MARKER_FREE_START;
    // A new marker-free execution asks nothing: the second baseline's behaviour, no marker.
    if (markerFree && !info.unsafe.isReplaying) return new RunPatches(true, true);
    if (patched(BASELINE_V2_PATCH)) return new RunPatches(true, true);
    if (patched(BASELINE_PATCH)) return new RunPatches(true, false);
    // Neither marker: a marker-free run's own history, or one from before the baselines.
    return new RunPatches(markerFree, markerFree);
  }

  /**
   * Is a behaviour added after the baselines on? Yes without a marker when the start memo lists it
   * (`harnessFeatures`, written by `startAgentRun`), else `patched(id)`. Ask it only at the start,
   * before the first activity: the memo is the start's, and the answer holds for the execution.
   */
  feature(id: StartFeatureId): boolean {
    const listed = workflowInfo().memo?.[START_FEATURES_MEMO_KEY];
    if (Array.isArray(listed) && listed.includes(id)) return true;
    return patched(id);
  }

  /** Is the behaviour of `id` on? On the baseline: yes, without a marker; else `patched(id)`. */
  on(id: BaselinePatchId): boolean {
    return this.baseline || patched(id);
  }
}
