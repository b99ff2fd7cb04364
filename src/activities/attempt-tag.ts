import { Context } from '@temporalio/activity';

/**
 * The tag of the current activity attempt in the ids of what a model call stores live (its deltas,
 * the deltas of the summaries it makes): `a<n>` for attempt n of a regular activity, `l<n>` for a
 * local activity's (a model call's fast try, docs/models.md "Fast model routes"). A fast try and the
 * regular activity that follows it both count from attempt 1, and may run at the same time (the try
 * that timed out is abandoned, not stopped), so they must not write under one id. Call it inside an
 * activity only; it throws outside one, as `Context.current()` does.
 */
export function attemptTag(): string {
  const { attempt, isLocal } = Context.current().info;
  return `${isLocal ? 'l' : 'a'}${attempt}`;
}
