import { isGrpcServiceError } from '@temporalio/client';
import { decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes.js';
import type { FastifyInstance } from 'fastify';
import {
  AgentProfileKey,
  AgentStatusKey,
  AgentUserKey,
  AgentWaitingReasonKey,
} from '../contract/visibility.js';
import { ApiError } from './api-error.js';
import { ListRunsQuerySchema, type RunList } from './api-schemas.js';
import type { Caller } from './caller-identity.js';
import { decisionContext, mayTakePending } from './decision-gate.js';
import { queryView } from './run-access.js';
import { parse, quote, type RunRoutesOptions } from './route-options.js';
import { newestFirstPage } from './newest-first.js';

/** Waiting reasons of a run that waits for an approval or a confirmation. */
const DECISION_WAIT = `AgentWaitingReason IN ('confirmation_required', 'human_decision_required') AND ExecutionStatus = 'Running'`;

/** How many runs of an approver's page are asked for their state at once. */
const VIEW_CONCURRENCY = 8;

/**
 * The caller's scope as visibility clauses (docs/api.md, "Scope"): the tenant always; a customer's
 * own runs; an approver's own runs and the runs that wait for a decision (then filtered run by run
 * to those they may take); an operator's whole tenant.
 */
export function scopeClauses(caller: Caller): string[] {
  const clauses = [`WorkflowType = 'agentRun'`, `AgentTenant = ${quote(caller.tenant)}`];
  if (caller.kind === 'customer') clauses.push(`AgentUser = ${quote(caller.user)}`);
  if (caller.kind === 'approver') clauses.push(`(AgentUser = ${quote(caller.user)} OR (${DECISION_WAIT}))`);
  return clauses;
}

/** Run `f` over `items`, at most `n` at a time, keeping the order. */
async function mapLimited<T, R>(items: readonly T[], n: number, f: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

/**
 * `GET /v1/runs`: the runs in the caller's scope, newest (latest started) first, a page at a time
 * (docs/api.md; newest-first.ts says how, on a visibility store without `ORDER BY`).
 * @throws ApiError 400 `request.invalid` / `request.invalid_cursor`; Temporal's errors (a 500).
 */
export function registerListRoute(app: FastifyInstance, o: RunRoutesOptions): void {
  const { client } = o;
  app.get('/v1/runs', async (req): Promise<RunList> => {
    const caller = o.callerOf(req);
    const q = parse(ListRunsQuerySchema, req.query, 'query');
    const clauses = scopeClauses(caller);
    if (q.status) clauses.push(`AgentStatus = ${quote(q.status)}`);
    if (q.waitingReason) clauses.push(`AgentWaitingReason = ${quote(q.waitingReason)}`);
    if (q.profile) clauses.push(`AgentProfile = ${quote(q.profile)}`);
    if (q.awaitingDecision === 'true') clauses.push(DECISION_WAIT);
    const page = await newestFirstPage(
      (query, pageSize, token) =>
        client.workflowService
          .listWorkflowExecutions({
            namespace: client.options.namespace,
            query,
            pageSize,
            ...(token ? { nextPageToken: token } : {}),
          })
          .catch((err: unknown) => {
            // A cursor's time the server cannot read (it passed our format check): the caller's mistake.
            if (q.cursor && isGrpcServiceError(err) && [2, 3].includes(Number(err.code)))
              throw new ApiError(400, 'request.invalid_cursor', 'cursor is not one this service issued');
            throw err;
          }),
      clauses.join(' AND '),
      q.limit,
      q.cursor,
      q.awaitingDecision === 'true',
    );
    const rows = page.runs.map((e) => {
      const sa = decodeTypedSearchAttributes(e.searchAttributes?.indexedFields);
      return {
        user: sa.get(AgentUserKey),
        run: {
          runId: e.execution?.workflowId ?? '',
          profile: sa.get(AgentProfileKey) ?? null,
          status: sa.get(AgentStatusKey) ?? null,
          waitingReason: sa.get(AgentWaitingReasonKey) ?? null,
          executionStatus: executionStatusName(e.status),
          startedAt: timestamp(e.startTime),
          closedAt: timestamp(e.closeTime),
        },
      };
    });
    // An approver's candidates that are not their own: only those whose wait they may decide now.
    const keep = await mapLimited(rows, VIEW_CONCURRENCY, async (r) => {
      if (caller.kind !== 'approver' || r.user === caller.user) return true;
      const view = await queryView(client.workflow.getHandle(r.run.runId));
      return view !== undefined && mayTakePending(caller, decisionContext(o.composition, view, r.user));
    });
    return {
      runs: rows.filter((_, i) => keep[i]).map((r) => r.run),
      ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
    };
  });
}

function timestamp(t: { seconds?: unknown; nanos?: number | null } | null | undefined): string | null {
  if (!t || t.seconds === undefined || t.seconds === null) return null;
  return new Date(Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)).toISOString();
}

const EXECUTION_STATUS = [
  'UNSPECIFIED',
  'RUNNING',
  'COMPLETED',
  'FAILED',
  'CANCELED',
  'TERMINATED',
  'CONTINUED_AS_NEW',
  'TIMED_OUT',
];
function executionStatusName(status: number | null | undefined): string {
  return EXECUTION_STATUS[status ?? 0] ?? 'UNSPECIFIED';
}
