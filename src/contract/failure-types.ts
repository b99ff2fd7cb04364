/**
 * ApplicationFailure types that cross the activity/workflow boundary, declared once so both sides
 * (activities and the workflow sandbox) read the same string.
 */

/** A write's executor threw after its intent was recorded: the outcome is unknown (non-retryable). */
export const TOOL_OUTCOME_UNKNOWN = 'tool.outcome_unknown';

/**
 * A write attempt failed before its executor was called (the store could not take its events or its
 * intent, the tool is not registered here): provably not applied, so the run may try it again under
 * the same approval and idempotency key (non-retryable for the activity itself).
 */
export const TOOL_NOT_STARTED = 'tool.not_started';

/**
 * This worker cannot serve a run's pinned tools: it lacks one of the profile's tools or has another
 * definition of it (non-retryable for the activity; the workflow fails its task so another worker
 * takes it).
 */
export const TOOLS_UNAVAILABLE = 'worker.tools_unavailable';

/**
 * This worker's definition of a tool has another digest than the one the run pinned for the call
 * (`ToolCallInput.definitionDigest`). Runs since `agent-run-worker-refusal-v1` (`workerRefusal`): the
 * call, read or write, is refused before anything is recorded with this type, non-retryable, and the
 * run schedules it again for another worker without spending an attempt of the tool (after
 * `MAX_WORKER_REFUSALS`, a write's refusal is a `tool.not_started`, a read's a failed call). Older
 * runs: a write's attempt fails `tool.not_started` with this code in its message (the run tries again,
 * up to its attempts); reads are not refused.
 */
export const TOOL_DEFINITION_CHANGED = 'worker.tool_definition_changed';

/**
 * This worker's configuration under a run's config pin (`RunConfigPin`: the pinned model route's
 * definition) has another digest than
 * the run pinned (runs since `agent-run-config-pin-v1`). A tool or model call is refused with this type
 * before anything is recorded, non-retryable, and the run schedules it again for another worker
 * without spending an attempt, as for {@link TOOL_DEFINITION_CHANGED}; a later generation's tool
 * snapshot is refused with it too (a workflow task failure: another worker takes the task).
 */
export const CONFIG_CHANGED = 'worker.config_changed';
