/**
 * Waiting on runs by their `state` query, from the bench's own client (the service's spans do not see
 * it). Each query of a run the worker no longer caches replays it there: benches that measure the
 * sticky cache wait by visibility instead (waiting-runs.ts).
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { RunView } from '../../src/contract/run-view.js';
import { QUERY_NAMES } from '../../src/contract/visibility.js';

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * Wait (up to 3 minutes) until every run waits for a decision (`pending`: run id -> its action id) or
 * has ended (`ended`: run id -> how many verified decisions it holds; a run that has not ended by then
 * is left out, which fails the bench's one-decision-per-run check). 16 queries at a time.
 * @throws Error naming the runs that never waited.
 */
export async function waitAll(
  client: Client,
  runIds: readonly string[],
  what: 'pending' | 'ended' = 'pending',
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const until = Date.now() + 180_000;
  let todo = [...runIds];
  while (todo.length > 0) {
    const next: string[] = [];
    for (let i = 0; i < todo.length; i += 16) {
      await Promise.all(
        todo.slice(i, i + 16).map(async (runId) => {
          let view: RunView | undefined;
          try {
            view = await client.workflow.getHandle(runId).query<RunView>(QUERY_NAMES.state);
          } catch (err) {
            if (!(err instanceof WorkflowNotFoundError)) view = undefined;
          }
          const p = view?.pendingAction;
          if (what === 'pending' && p && (p.kind === 'human' || p.kind === 'confirmation'))
            out.set(runId, p.actionId);
          else if (what === 'ended' && view && TERMINAL.has(view.status))
            out.set(runId, String(view.decisions?.length ?? 0));
          else next.push(runId);
        }),
      );
    }
    todo = next;
    if (todo.length === 0) break;
    if (Date.now() > until && what === 'ended') return out; // counted as not ended: a failed check
    if (Date.now() > until)
      throw new Error(
        `${todo.length} runs never ${what === 'pending' ? 'waited' : 'ended'}: ${todo.slice(0, 5).join(', ')}`,
      );
    await new Promise((r) => setTimeout(r, 500));
  }
  return out;
}
