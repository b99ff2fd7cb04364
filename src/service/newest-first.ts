import type { temporal } from '@temporalio/proto';
import { ApiError } from './api-error.js';

type Execution = temporal.api.workflow.v1.IWorkflowExecutionInfo;
/** One visibility page: what `listWorkflowExecutions` answers. */
export type ListPage = (
  query: string,
  pageSize: number,
  token: Uint8Array | undefined,
) => Promise<{ executions?: Execution[] | null; nextPageToken?: Uint8Array | null }>;

/** Where the next page starts: after the run `id` started at `t` (newest first). */
interface Cursor {
  readonly t: string;
  readonly id: string;
}

/** Closed runs read at most per page, past which the page is the newest of those read. */
const MAX_SCAN = 2_000;
const T_FORMAT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/;
const ID_FORMAT = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,399}$/;

/** A visibility timestamp as RFC 3339 with nanoseconds (sorts as text). */
function key(t: { seconds?: unknown; nanos?: number | null } | null | undefined): string | undefined {
  if (!t || t.seconds === undefined || t.seconds === null) return undefined;
  const whole = new Date(Number(t.seconds) * 1000).toISOString().slice(0, 19);
  return `${whole}.${String(t.nanos ?? 0).padStart(9, '0')}Z`;
}

const idOf = (e: Execution) => e.execution?.workflowId ?? '';
/** Newest first: later start, then the larger id. */
const newer = (a: Execution, b: Execution) =>
  (key(b.startTime) ?? '').localeCompare(key(a.startTime) ?? '') || idOf(b).localeCompare(idOf(a));

/**
 * Read an opaque cursor of {@link newestFirstPage}.
 * @throws ApiError 400 `request.invalid_cursor` when it is not one this service issued.
 */
export function readCursor(cursor: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<Cursor>;
    if (typeof c.t === 'string' && T_FORMAT.test(c.t) && typeof c.id === 'string' && ID_FORMAT.test(c.id))
      return { t: c.t, id: c.id };
  } catch {
    // not JSON: refused below
  }
  throw new ApiError(400, 'request.invalid_cursor', 'cursor is not one this service issued');
}

/**
 * One page of the runs `scope` selects, newest (latest started) first, and the cursor of the next.
 * Temporal's SQL visibility (the dev server, PostgreSQL, MySQL) has no `ORDER BY`: it lists running
 * runs first, then closed runs by close time. So this reads two streams: the running runs (listed by
 * start time, newest first) and the closed ones (by close time), and stops reading closed runs once
 * one closed before the page's oldest start (every later one started even earlier). The page is then
 * exact; past {@link MAX_SCAN} closed runs read for one page (many long runs closing late) it is the
 * newest of those read. Paging is by start time and id, so a run appears once across pages.
 * @throws Temporal's errors as they come.
 */
export async function newestFirstPage(
  list: ListPage,
  scope: string,
  limit: number,
  cursor: string | undefined,
  /** The scope selects running runs only (the inbox's `awaitingDecision`): no closed runs to read. */
  runningOnly = false,
): Promise<{ runs: Execution[]; nextCursor?: string }> {
  const after = cursor !== undefined ? readCursor(cursor) : undefined;
  const bound = after ? ` AND StartTime <= '${after.t}'` : '';
  const inPage = (e: Execution) => {
    if (!after) return true;
    const t = key(e.startTime) ?? '';
    return t < after.t || (t === after.t && idOf(e) < after.id);
  };
  const running = await readStream(
    list,
    `${scope} AND ExecutionStatus = 'Running'${bound}`,
    limit,
    inPage,
    (rows) => rows.length >= limit,
  );
  const closed = runningOnly
    ? { rows: [], more: false }
    : await readStream(
        list,
        `${scope} AND ExecutionStatus != 'Running'${bound}`,
        limit,
        inPage,
        (rows, last) => {
          const all = [...running.rows, ...rows].sort(newer);
          const oldestInPage = all.length >= limit ? key(all[limit - 1]!.startTime) : undefined;
          const closedAt = key(last.closeTime);
          return oldestInPage !== undefined && closedAt !== undefined && closedAt < oldestInPage;
        },
      );
  const all = [...running.rows, ...closed.rows].sort(newer);
  const runs = all.slice(0, limit);
  const more = all.length > limit || running.more || closed.more;
  const last = runs[runs.length - 1];
  if (!more || !last) return { runs };
  const next: Cursor = { t: key(last.startTime) ?? '', id: idOf(last) };
  return { runs, nextCursor: Buffer.from(JSON.stringify(next)).toString('base64url') };
}

/** Read `query`'s pages, keeping the rows `inPage` says, until `done` (or the last page, or {@link MAX_SCAN}). */
async function readStream(
  list: ListPage,
  query: string,
  limit: number,
  inPage: (e: Execution) => boolean,
  done: (rows: Execution[], last: Execution) => boolean,
): Promise<{ rows: Execution[]; more: boolean }> {
  const rows: Execution[] = [];
  let token: Uint8Array | undefined;
  let scanned = 0;
  for (;;) {
    const page = await list(query, Math.max(limit, 100), token);
    const got = page.executions ?? [];
    scanned += got.length;
    rows.push(...got.filter(inPage));
    token = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
    const last = got[got.length - 1];
    if (!token) return { rows, more: false };
    if (last !== undefined && done(rows, last)) return { rows, more: true };
    if (scanned >= MAX_SCAN) return { rows, more: true };
  }
}
