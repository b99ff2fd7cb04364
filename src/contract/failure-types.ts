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
 * (`ToolCallInput.definitionDigest`): a write's attempt is refused before anything is recorded, and
 * fails `tool.not_started` with this code in its message (the run tries again, possibly on another
 * worker, up to its attempts, then asks a person). Reads are not refused (see `ToolCallInput`).
 */
export const TOOL_DEFINITION_CHANGED = 'worker.tool_definition_changed';
