import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { temporal } from '@temporalio/proto';

/** A recorded workflow history kept in the repository and replayed against every new build. */
export interface HistoryFixture {
  /** The file name without `.json`: what the fixture is. */
  readonly name: string;
  /**
   * The workflow id the history was recorded under (from its start event; the name for histories that
   * do not carry it). Replay under this id: a run may depend on its own id (signed decisions are bound
   * to it).
   */
  readonly workflowId: string;
  readonly history: temporal.api.history.v1.IHistory;
  readonly file: string;
}

/**
 * Fetch a finished workflow's history and write it as `<dir>/<name>.json` (the same JSON shape as
 * `temporal workflow show --output json`), so it can be replayed later without a server.
 */
export async function recordHistory(
  client: Client,
  workflowId: string,
  dir: string,
  name: string,
): Promise<string> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const file = join(dir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 1)}\n`);
  return file;
}

/**
 * The workflow id a history was recorded under (its start event names it; older servers did not
 * record it there). Replay a history under this id and no other: a run's decisions are bound to
 * it (a signed decision names the workflow id and first run id), so under another id each one is
 * refused on replay, the wait it ended never ends, and the replay fails as a nondeterminism (e.g.
 * `No command scheduled for event TimerCanceled` where the decision cancelled the wait's timer).
 * `Worker.runReplayHistory` without an id replays under `fake`.
 */
export function recordedWorkflowId(history: temporal.api.history.v1.IHistory): string | undefined {
  return history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId || undefined;
}

/** Read every `*.json` history in `dir` (sorted by name). @throws on unreadable or invalid JSON. */
export function loadHistoryFixtures(dir: string): HistoryFixture[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const file = join(dir, f);
      const history = historyFromJSON(JSON.parse(readFileSync(file, 'utf8')));
      const name = f.replace(/\.json$/, '');
      return { name, workflowId: recordedWorkflowId(history) ?? name, history, file };
    });
}
