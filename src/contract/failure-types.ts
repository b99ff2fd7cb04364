/**
 * ApplicationFailure types that cross the activity/workflow boundary, declared once so both sides
 * (activities and the workflow sandbox) read the same string.
 */

/** A write's executor threw after its intent was recorded: the outcome is unknown (non-retryable). */
export const TOOL_OUTCOME_UNKNOWN = 'tool.outcome_unknown';

/**
 * This worker cannot serve a run's pinned tools: it lacks one of the profile's tools or has another
 * definition of it (non-retryable for the activity; the workflow fails its task so another worker
 * takes it).
 */
export const TOOLS_UNAVAILABLE = 'worker.tools_unavailable';
