/**
 * Waiting on runs by visibility (search attributes, counts and lists), never by their `state` query:
 * a query of a run its worker no longer caches replays it there, which a bench of the sticky cache
 * must not cause (bench/tools/waiting-runs.ts).
 */
import type { Client } from '@temporalio/client';
import { progress } from './progress.js';

/** A wait for visibility fails when its count has not moved for this long. */
const STALL_MS = 180_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Throws when a run of `inTenant` has ended before its approval, naming how many and the first one's
 * failure (e.g. `start.token_expired`: its first workflow task began after its signed start expired).
 */
export async function endedEarly(client: Client, inTenant: string): Promise<void> {
  const query = `${inTenant} AND ExecutionStatus != 'Running'`;
  const { count } = await client.workflow.count(query);
  if (count === 0) return;
  let why = '';
  for await (const w of client.workflow.list({ query, pageSize: 1 })) {
    why = await client.workflow
      .getHandle(w.workflowId)
      .result()
      .then(
        () => 'completed',
        (e: unknown) => String((e as { cause?: { message?: string } }).cause?.message ?? e),
      );
    break;
  }
  throw new Error(`${count} runs ended before their approval, e.g.: ${why}`);
}

/**
 * Start `i` only when fewer than `max` started runs are not yet waiting (visibility, read at most
 * once a second): a burst beyond what the workers take in a few minutes would leave runs whose first
 * task starts after their signed start expired (5 minutes). Resolves true; @throws as {@link endedEarly}.
 */
export function pacer(
  client: Client,
  waitingQuery: string,
  inTenant: string,
  max: number,
): (i: number) => Promise<true> {
  let waiting = 0;
  let reading: Promise<void> | undefined;
  const refresh = () =>
    (reading ??= (async () => {
      await sleep(1000);
      await endedEarly(client, inTenant);
      waiting = (await client.workflow.count(waitingQuery)).count;
    })().finally(() => (reading = undefined)));
  return async (i) => {
    while (i - waiting >= max) await refresh();
    return true;
  };
}

/**
 * Poll the visibility count of `query` until it reaches `want`; progress at each change; `check`
 * (when given) runs at each poll and may throw.
 * @throws Error when the count has not moved for {@link STALL_MS}.
 */
export async function countUntil(
  client: Client,
  query: string,
  want: number,
  what: string,
  check?: () => Promise<void>,
): Promise<number> {
  let last = -1;
  let movedAt = Date.now();
  for (;;) {
    await check?.();
    const { count } = await client.workflow.count(query);
    if (count >= want) return count;
    if (count !== last) {
      progress(`  ${count}/${want} ${what}`);
      last = count;
      movedAt = Date.now();
    }
    if (Date.now() - movedAt > STALL_MS)
      throw new Error(`${what}: stuck at ${count}/${want} for ${STALL_MS / 1000} s (${query})`);
    await sleep(1000);
  }
}

/** Latest close time (ms, server clock) of the runs `query` lists. */
export async function lastCloseMs(client: Client, query: string): Promise<number> {
  let last = 0;
  for await (const w of client.workflow.list({ query })) last = Math.max(last, w.closeTime?.getTime() ?? 0);
  return last;
}
