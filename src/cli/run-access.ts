import type { WorkflowHandle } from '@temporalio/client';
import type { EvidenceStore, StoredEvent } from '../activities/store/index.js';
import type { RunView } from '../contract/run-view.js';
import type { CliTemporal } from './connect.js';
import { CliError, EXIT } from './errors.js';

/** How long a `state` query may take before the CLI gives up (a closed run needs a worker to answer). */
const QUERY_DEADLINE_MS = 15_000;

/**
 * The run's `state` query (src/workflows/temporal/run-view.ts). Works for closed runs too while a worker of the
 * task queue runs.
 * @throws CliError `cli.query_failed` (exit 1) when no worker answers in time or the workflow is not an agentRun.
 */
export async function queryState(t: CliTemporal, handle: WorkflowHandle): Promise<RunView> {
  try {
    return await t.client.connection.withDeadline(Date.now() + QUERY_DEADLINE_MS, () =>
      handle.query<RunView>('state'),
    );
  } catch (err) {
    throw new CliError(
      'cli.query_failed',
      `the state query of ${handle.workflowId} failed: ${(err as Error).message} ` +
        '(is a worker running on its task queue? start one with `harness worker` or `harness dev`)',
      EXIT.runtime,
    );
  }
}

/**
 * Every stored event of a run after `afterSeq`, in order (pages through the store).
 * @throws the store's errors.
 */
export async function readEvents(store: EvidenceStore, runId: string, afterSeq = 0): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  let after = afterSeq;
  for (;;) {
    const page = await store.listEvents(runId, { afterSeq: after, limit: 1000 });
    all.push(...page);
    const last = page.at(-1);
    if (page.length < 1000 || !last) return all;
    after = last.seq;
  }
}

/** Highest stored event sequence of a run (0 when none). */
export async function lastEventSeq(store: EvidenceStore, runId: string): Promise<number> {
  return (await readEvents(store, runId)).at(-1)?.seq ?? 0;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Temporal execution statuses after which a workflow id's latest run is closed. */
export function isClosed(executionStatus: string): boolean {
  return executionStatus !== 'RUNNING';
}
