/**
 * ApplicationFailure types that cross the activity/workflow boundary, declared once so both sides
 * (activities and the workflow sandbox) read the same string.
 */

/** A write's executor threw after its intent was recorded: the outcome is unknown (non-retryable). */
export const TOOL_OUTCOME_UNKNOWN = 'tool.outcome_unknown';
