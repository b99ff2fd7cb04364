import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { HarnessError } from '../contract/errors.js';
import type { RunView } from '../contract/run-view.js';
import { isTerminal, RunStatusSchema, type RunStatus } from '../contract/statuses.js';
import { QUERY_NAMES } from '../contract/visibility.js';

/** What {@link getRunView} and {@link waitForStatus} use of a run's handle (a `WorkflowHandle` has it). */
export type RunHandle = Pick<WorkflowHandle, 'workflowId' | 'query' | 'describe'>;

/** How long {@link waitForStatus} waits, and how often it asks. */
export interface WaitForStatusOptions {
  /** Give up after this many milliseconds (`run.wait_timeout`). */
  readonly timeoutMs: number;
  /** Pause between two looks at the run; default 200 ms. */
  readonly pollMs?: number;
}

/** True for a `state` answer that is a run's view (it names one of the run statuses). */
function isRunView(value: unknown): value is RunView {
  return (
    typeof value === 'object' &&
    value !== null &&
    RunStatusSchema.safeParse((value as { status?: unknown }).status).success
  );
}

/**
 * The run's view, as its `state` query answers it (docs/signals.md), or undefined while there is none:
 * before the run has pinned its tools (the query is not answered yet, or answers empty), and when no
 * worker answers the query (a closed run nobody serves any more).
 * @throws WorkflowNotFoundError when there is no such workflow.
 */
export async function getRunView(handle: Pick<RunHandle, 'query'>): Promise<RunView | undefined> {
  let answer: unknown;
  try {
    answer = await handle.query<unknown>(QUERY_NAMES.state);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw err;
    return undefined;
  }
  return isRunView(answer) ? answer : undefined;
}

/** The execution status name when the workflow is closed (not a continue-as-new), else undefined. */
async function closedAs(handle: RunHandle): Promise<string | undefined> {
  const { status } = await handle.describe();
  return status.name === 'RUNNING' || status.name === 'CONTINUED_AS_NEW' ? undefined : status.name;
}

/** `promise`, or `undefined` once `ms` have passed (the promise is left to settle unobserved). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
  });
  promise.catch(() => undefined);
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** One look at the run: is it closed (execution status), and what does its view say. */
interface Look {
  readonly closed: string | undefined;
  readonly view: RunView | undefined;
}

/** The workflow's closed state first, then its view: a view read after the close is the final one. */
async function look(handle: RunHandle): Promise<Look> {
  const closed = await closedAs(handle);
  return { closed, view: await getRunView(handle) };
}

function closedError(
  handle: RunHandle,
  statuses: readonly RunStatus[],
  status: string,
  lastStatus?: RunStatus,
): HarnessError {
  const while_ = lastStatus !== undefined && lastStatus !== status ? ` (last run status ${lastStatus})` : '';
  return new HarnessError(
    'run.closed_in_other_status',
    `run ${handle.workflowId} closed in ${status}${while_}, not ${statuses.join(' or ')}`,
    { workflowId: handle.workflowId, status, statuses: [...statuses], lastStatus: lastStatus ?? null },
  );
}

/**
 * Wait until the run's `state` query reports one of `statuses`, and resolve with that view. Polls the
 * query (every `pollMs`); an empty answer (tools not pinned yet) or an unanswered query counts as "no
 * status yet".
 *
 * Failure semantics (each a {@link HarnessError}):
 * - `run.closed_in_other_status` when the run reached a terminal status not in `statuses`, or its
 *   workflow closed otherwise (failed, terminated, timed out: `details.status` is the execution
 *   status, e.g. `TERMINATED`) without reaching one of them;
 * - `run.wait_timeout` after `timeoutMs`, naming the last status seen (`details.lastStatus`, null when
 *   the run never answered);
 * - `run.wait_invalid` for an empty or unknown status list or a timeout that is not a positive number.
 * @throws WorkflowNotFoundError when there is no such workflow; the connection's errors as they come.
 */
export async function waitForStatus(
  handle: RunHandle,
  statuses: RunStatus | readonly RunStatus[],
  options: WaitForStatusOptions,
): Promise<RunView> {
  const wanted: readonly RunStatus[] = typeof statuses === 'string' ? [statuses] : statuses;
  const { timeoutMs, pollMs = 200 } = options;
  if (wanted.length === 0 || !wanted.every((s) => RunStatusSchema.safeParse(s).success))
    throw new HarnessError('run.wait_invalid', `not run statuses: ${JSON.stringify(wanted)}`);
  if (!(timeoutMs > 0) || !(pollMs > 0))
    throw new HarnessError('run.wait_invalid', 'timeoutMs and pollMs must be positive numbers');
  const deadline = Date.now() + timeoutMs;
  let last: RunStatus | undefined;
  for (;;) {
    const seen = await within(look(handle), deadline - Date.now());
    if (seen?.view) {
      last = seen.view.status;
      if (wanted.includes(last)) return seen.view;
      if (isTerminal(last)) throw closedError(handle, wanted, last, last);
    }
    if (seen?.closed) throw closedError(handle, wanted, seen.closed, last);
    const left = deadline - Date.now();
    if (left <= 0)
      throw new HarnessError(
        'run.wait_timeout',
        `run ${handle.workflowId} did not reach ${wanted.join(' or ')} within ${timeoutMs} ms; last status: ${last ?? 'none (no view yet)'}`,
        { workflowId: handle.workflowId, statuses: [...wanted], lastStatus: last ?? null, timeoutMs },
      );
    await new Promise((r) => setTimeout(r, Math.min(pollMs, left)));
  }
}
