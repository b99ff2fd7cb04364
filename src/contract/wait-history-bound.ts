/**
 * History size (bytes) at which a run that waits for a person moves to a new history: Temporal records
 * every signal before the workflow sees it, even one the run refuses, and terminates an execution
 * whose history passes 50 MB (its default `limit.historySize.error`). A flood of large refused
 * decisions (1,000 of 64 KB) would cross that while the run waits. At this bound the wait continues
 * as new with the same pending action (or, where the profile has no point to resume from, the run
 * ends with `run.history_limit`): well under the server's limit, and above its 10 MB warning only by
 * what one batch of signals adds (docs/limits.md).
 */
export const WAIT_HISTORY_BOUND_BYTES = 8 * 1024 * 1024;

/** The lowest bound a run input may ask for (`waitHistoryBoundBytes`; tests and replay fixtures). */
export const MIN_WAIT_HISTORY_BOUND_BYTES = 64 * 1024;
