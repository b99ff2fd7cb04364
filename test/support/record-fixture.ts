import type { Client } from '@temporalio/client';
import { recordHistory } from '../../src/worker/history-fixtures.js';

/**
 * With `HARNESS_RECORD_HISTORIES=<dir>` set, keep the finished workflow's history as the replay
 * fixture `<dir>/<name>.json` (committed fixtures live in test/fixtures/histories and replay in
 * test/replay). Does nothing otherwise.
 */
export async function recordFixtureIfAsked(client: Client, workflowId: string, name: string): Promise<void> {
  const dir = process.env.HARNESS_RECORD_HISTORIES;
  if (dir) await recordHistory(client, workflowId, dir, name);
}
