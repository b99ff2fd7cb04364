import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { EvidenceStore } from '../../contract/evidence-store.js';
import type { FailureSampleRecord } from '../../contract/failure-sample-record.js';
import { readAllEvents } from '../evidence/read-all-events.js';
import { loadRunPackages } from '../../activities/context/run-metrics.js';
import { historyFacts, sumHistoryFacts, type HistoryFacts } from './history-facts.js';
import type { RunEvidence } from './run-evidence-metrics.js';

type History = temporal.api.history.v1.IHistory;

/** Most generations (continue-as-new) of one run whose histories are read. */
export const MAX_GENERATIONS_READ = 50;

/** Replays a failed run's last history; true when it ends with the stored failure. */
export type FailureReplayer = (failure: FailureSampleRecord, lastHistory: History) => Promise<boolean>;

export interface CollectRunEvidenceOptions {
  readonly store: EvidenceStore;
  /** Read the runs' Temporal histories through this client (queue wait, interruptions, attempts). */
  readonly temporal?: Client;
  /** Replay the failure samples (failure reproduction); needs `temporal` for the histories. */
  readonly replay?: FailureReplayer;
  /** Called after each run, for progress output. */
  readonly onRun?: (done: number, total: number) => void;
}

/**
 * The histories of every generation of a workflow, newest first: the latest run, then the run it
 * continued from (`continuedExecutionRunId` of its start), at most {@link MAX_GENERATIONS_READ}.
 * @returns an empty list when the server no longer holds the workflow (its retention ended).
 */
export async function generationHistories(client: Client, workflowId: string): Promise<History[]> {
  const out: History[] = [];
  let runId: string | undefined;
  for (let i = 0; i < MAX_GENERATIONS_READ; i++) {
    let history: History;
    try {
      history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    } catch (err) {
      if ((err as Error).name === 'WorkflowNotFoundError' || /not found/i.test((err as Error).message)) break;
      throw err;
    }
    out.push(history);
    const previous = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) break;
    runId = previous;
  }
  return out;
}

/**
 * Gather the {@link RunEvidence} of `runIds`, one run at a time (bounded memory and server load):
 * record, events, tool calls and request packages from the store; with `temporal`, the facts of its histories; with
 * `replay`, whether its failure sample reproduces.
 * @throws the store's and the server's errors (a workflow the server no longer holds is not one).
 */
export async function collectRunEvidence(
  runIds: readonly string[],
  o: CollectRunEvidenceOptions,
): Promise<RunEvidence[]> {
  const out: RunEvidence[] = [];
  for (const runId of runIds) {
    const [record, events, invocations, failure, contextPackages] = await Promise.all([
      o.store.getRun(runId),
      readAllEvents(o.store, runId),
      o.store.listInvocations(runId),
      o.store.getFailureSample(runId),
      loadRunPackages(o.store, runId),
    ]);
    let history: HistoryFacts | undefined;
    let reproduced: boolean | undefined;
    if (o.temporal) {
      const histories = await generationHistories(o.temporal, runId);
      if (histories.length > 0) history = sumHistoryFacts(histories.map(historyFacts));
      if (failure && o.replay && histories[0]) reproduced = await o.replay(failure, histories[0]);
    }
    out.push({
      runId,
      record,
      events,
      invocations,
      contextPackages,
      ...(history ? { history } : {}),
      ...(failure ? { failure: { reproduced } } : {}),
    });
    o.onRun?.(out.length, runIds.length);
  }
  return out;
}
