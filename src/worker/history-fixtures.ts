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

/** Read every `*.json` history in `dir` (sorted by name). @throws on unreadable or invalid JSON. */
export function loadHistoryFixtures(dir: string): HistoryFixture[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const file = join(dir, f);
      const history = historyFromJSON(JSON.parse(readFileSync(file, 'utf8')));
      const name = f.replace(/\.json$/, '');
      const recorded = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId;
      return { name, workflowId: recorded || name, history, file };
    });
}
