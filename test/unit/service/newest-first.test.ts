import { describe, expect, it } from 'vitest';
import { newestFirstPage, type ListPage } from '../../../src/service/newest-first.js';
import { ApiError } from '../../../src/service/api-error.js';

/**
 * `GET /v1/runs` newest first over a visibility store without `ORDER BY` (src/service/newest-first.ts):
 * the stand-in lists as Temporal's SQL visibility does (running runs first, newest start first; then
 * closed runs by close time, latest first), pages by an offset token, and reads the status and
 * `StartTime <=` clauses the page adds to the scope.
 */
interface Run {
  id: string;
  start: number;
  close?: number;
}
const ts = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });
const iso = (ms: number) =>
  `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}.${String((ms % 1000) * 1e6).padStart(9, '0')}Z`;

function sqlVisibility(runs: readonly Run[]): { list: ListPage; queries: string[] } {
  const queries: string[] = [];
  const list: ListPage = (query, pageSize, token) => {
    queries.push(query);
    const bound = /StartTime <= '([^']+)'/.exec(query)?.[1];
    const rows = runs
      .filter((r) =>
        query.includes("!= 'Running'")
          ? r.close !== undefined
          : query.includes("= 'Running'")
            ? r.close === undefined
            : true,
      )
      .filter((r) => bound === undefined || iso(r.start) <= bound)
      .sort((a, b) => (b.close ?? Infinity) - (a.close ?? Infinity) || b.start - a.start);
    const from = token ? Number(Buffer.from(token).toString()) : 0;
    const page = rows.slice(from, from + pageSize);
    const next = from + pageSize < rows.length ? Buffer.from(String(from + pageSize)) : undefined;
    const answer = {
      executions: page.map((r) => ({
        execution: { workflowId: r.id },
        startTime: ts(r.start),
        ...(r.close !== undefined ? { closeTime: ts(r.close) } : {}),
      })),
      ...(next ? { nextPageToken: next } : {}),
    };
    return Promise.resolve(answer as unknown as Awaited<ReturnType<ListPage>>);
  };
  return { list, queries };
}

async function allPages(list: ListPage, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1000; i++) {
    const page = await newestFirstPage(list, "WorkflowType = 'agentRun'", limit, cursor);
    ids.push(...page.runs.map((r) => r.execution!.workflowId!));
    cursor = page.nextCursor;
    if (!cursor) return ids;
  }
  throw new Error('no last page');
}

describe('newest first', () => {
  it('lists running and ended runs together by start time, newest first, on every page', async () => {
    // Old runs still running, new runs that ended at once, long runs that ended late: the raw order is wrong.
    let seed = 7;
    const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const runs: Run[] = Array.from({ length: 120 }, (_, i) => {
      const start = 1_700_000_000_000 + Math.floor(rand() * 3_600_000);
      const kind = rand();
      return {
        id: `run-${String(i).padStart(3, '0')}`,
        start,
        ...(kind < 0.3 ? {} : { close: start + Math.floor(rand() * (kind < 0.9 ? 2_000 : 3_000_000)) }),
      };
    });
    const want = [...runs].sort((a, b) => b.start - a.start || b.id.localeCompare(a.id)).map((r) => r.id);
    const { list } = sqlVisibility(runs);
    for (const limit of [1, 7, 50, 200]) expect(await allPages(list, limit)).toEqual(want);
  });

  it('reads only running runs when the scope asks for them, and refuses a cursor it did not issue', async () => {
    const { list, queries } = sqlVisibility([{ id: 'a', start: 1_700_000_000_000 }]);
    const page = await newestFirstPage(list, "WorkflowType = 'agentRun'", 10, undefined, true);
    expect(page.runs).toHaveLength(1);
    expect(queries.every((q) => !q.includes("!= 'Running'"))).toBe(true);
    const bad = Buffer.from(JSON.stringify({ t: "2026' OR '1'='1", id: 'a' })).toString('base64url');
    await expect(newestFirstPage(list, 'x', 10, bad)).rejects.toMatchObject({
      status: 400,
      code: 'request.invalid_cursor',
    });
    await expect(newestFirstPage(list, 'x', 10, 'AAAA')).rejects.toBeInstanceOf(ApiError);
  });
});
