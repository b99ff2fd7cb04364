import { createHash, randomUUID } from 'node:crypto';
import { isGrpcServiceError, WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AgentProfileKey,
  AgentStatusKey,
  AgentWaitingReasonKey,
  QUERY_NAMES,
} from '../contract/visibility.js';
import { isHarnessError } from '../contract/errors.js';
import { canonicalJson } from '../core/tools/canonical-json.js';
import type { AgentRunComposition } from '../core/workflow/agent-run-definition.js';
import type { RunView } from '../core/workflow/run-view.js';
import { buildRunInput, resolvePolicy, resolveProfile } from '../client/cli/build-run-input.js';
import type { DecisionKey } from '../client/decisions/decision-key.js';
import { sendDecision, signedPayload } from '../client/decisions/send-decision.js';
import { startAgentRun } from '../client/start-run.js';
import type { EvidenceStore } from '../worker/store/index.js';
import type { Admission } from './admission.js';
import { ApiError } from './api-error.js';
import {
  CancelBodySchema,
  DecisionBodySchema,
  IdempotencyKeySchema,
  ListRunsQuerySchema,
  StartRunBodySchema,
} from './api-schemas.js';
import type { Caller } from './caller-identity.js';
import { streamRunEvents } from './event-stream.js';
import type { RunEventFeeds } from './run-event-feed.js';
import { projectPublicValue } from '../client/evidence/public-projection.js';
import { accessRun } from './run-access.js';
import { decisionStatus, runDecision, type RunDecision } from './run-decisions.js';
import { mayDecide } from './decision-hint.js';
import type { ServiceConfig } from './service-config.js';
import type { ServiceMetrics } from './service-metrics.js';

export interface RunRoutesOptions {
  readonly client: Client;
  readonly store: EvidenceStore;
  readonly composition: AgentRunComposition;
  readonly taskQueue: string;
  readonly delegateKey: DecisionKey;
  readonly config: ServiceConfig;
  readonly admission: Admission;
  readonly metrics: ServiceMetrics;
  /** One store poller per followed run, shared by its streams. */
  readonly feeds: RunEventFeeds;
  /** When a request reached the service (epoch ms, before its token was verified): rate buckets judge by it. */
  readonly arrivedAt: (req: FastifyRequest) => number;
  /** The verified caller of a request (set by the service's auth hook). */
  readonly callerOf: (req: FastifyRequest) => Caller;
  /** Aborted when the service closes: open event streams end. */
  readonly closing: AbortSignal;
}

/** Parse with a zod schema; a failure is a 400 naming the first problem. */
function parse<T>(
  schema: {
    safeParse(
      v: unknown,
    ):
      | { success: true; data: T }
      | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
  },
  value: unknown,
  what: string,
): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const i = r.error.issues[0];
  throw new ApiError(
    400,
    'request.invalid',
    `${what}: ${i?.path.map(String).join('.') || '(root)'}: ${i?.message}`,
  );
}

const hasRole = (caller: Caller, roles: readonly string[]) => caller.roles.some((r) => roles.includes(r));

/** The /v1/runs routes (docs/api.md). */
export function registerRunRoutes(app: FastifyInstance, o: RunRoutesOptions): void {
  const { client } = o;
  const quote = (v: string) => `'${v.replace(/'/g, "''")}'`;

  app.post('/v1/runs', async (req, reply) => {
    const caller = o.callerOf(req);
    if (!hasRole(caller, o.config.roles.start))
      throw new ApiError(
        403,
        'auth.role_missing',
        `starting a run needs one of the roles ${o.config.roles.start.join(', ')}`,
      );
    const body = parse(StartRunBodySchema, req.body, 'body');
    const keyHeader = req.headers['idempotency-key'];
    const idempotencyKey =
      keyHeader === undefined ? undefined : parse(IdempotencyKeySchema, keyHeader, 'Idempotency-Key');
    let input;
    try {
      const profile = resolveProfile(o.composition, body.profile);
      const policy = resolvePolicy(o.composition, body.policy, profile);
      input = buildRunInput({
        profile,
        ...(body.policy !== undefined ? { policy } : {}),
        task: body.task,
        ...(body.modelRoute !== undefined ? { modelRoute: body.modelRoute } : {}),
        ...(body.budget !== undefined ? { budget: body.budget } : {}),
        ...(body.approvalTimeoutSeconds !== undefined
          ? { approvalTimeoutSeconds: body.approvalTimeoutSeconds }
          : {}),
        ...(body.threadId !== undefined ? { threadId: body.threadId } : {}),
        tenantId: caller.tenant,
        userId: caller.user,
      });
    } catch (err) {
      if (isHarnessError(err))
        throw new ApiError(400, err.code === 'cli.usage' ? 'request.invalid' : err.code, err.message);
      throw err;
    }
    const requestDigest = `sha256:${createHash('sha256').update(canonicalJson(body)).digest('hex')}`;
    const workflowId =
      idempotencyKey === undefined
        ? `run-${caller.tenant}-${randomUUID()}`
        : `run-${caller.tenant}-${createHash('sha256').update(`${caller.tenant}\u0000${caller.user}\u0000${idempotencyKey}`).digest('hex').slice(0, 32)}`;
    // The rate first, judged at the request's arrival (a busy process handles requests later than they
    // came; the caller's rate is what they sent); then the active runs, which cost visibility queries.
    const rate = o.admission.admitStartRate(caller, o.arrivedAt(req));
    if (rate) throw new ApiError(429, rate.code, rate.message, rate.retryAfterSeconds);
    const running = `WorkflowType = 'agentRun' AND ExecutionStatus = 'Running' AND AgentTenant = ${quote(caller.tenant)}`;
    const [tenantActive, userActive] = await Promise.all([
      client.workflow.count(running),
      client.workflow.count(`${running} AND AgentUser = ${quote(caller.user)}`),
    ]);
    const refusal = o.admission.admitActiveRuns(caller, {
      tenant: tenantActive.count,
      user: userActive.count,
    });
    if (refusal) throw new ApiError(429, refusal.code, refusal.message, refusal.retryAfterSeconds);
    try {
      await startAgentRun(client, {
        taskQueue: o.taskQueue,
        workflowId,
        input,
        memo: { requestDigest },
        rejectDuplicateId: idempotencyKey !== undefined,
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError) || idempotencyKey === undefined) throw err;
      const existing = await accessRun(client, caller, workflowId);
      if (existing.memo.requestDigest !== requestDigest)
        throw new ApiError(
          409,
          'idempotency.key_reused',
          'this Idempotency-Key was used with another request',
        );
      void reply.header('idempotent-replayed', 'true');
      return reply.code(200).send(runLinks(workflowId, existing.executionStatus));
    }
    o.metrics.count('harness_runs_started_total', {
      profile: `${input.profile.name}@${input.profile.version}`,
    });
    return reply.code(201).send(runLinks(workflowId, 'RUNNING'));
  });

  app.get('/v1/runs', async (req) => {
    const caller = o.callerOf(req);
    const q = parse(ListRunsQuerySchema, req.query, 'query');
    const clauses = [`WorkflowType = 'agentRun'`, `AgentTenant = ${quote(caller.tenant)}`];
    if (q.status) clauses.push(`AgentStatus = ${quote(q.status)}`);
    if (q.waitingReason) clauses.push(`AgentWaitingReason = ${quote(q.waitingReason)}`);
    if (q.profile) clauses.push(`AgentProfile = ${quote(q.profile)}`);
    if (q.awaitingDecision === 'true')
      clauses.push(
        `AgentWaitingReason IN ('confirmation_required', 'human_decision_required')`,
        `ExecutionStatus = 'Running'`,
      );
    const page = await client.workflowService
      .listWorkflowExecutions({
        namespace: client.options.namespace,
        query: clauses.join(' AND '),
        pageSize: q.limit,
        ...(q.cursor ? { nextPageToken: Buffer.from(q.cursor, 'base64url') } : {}),
      })
      .catch((err: unknown) => {
        // The server refuses a page token it cannot read as UNKNOWN (gRPC 2, SQL visibility) or
        // INVALID_ARGUMENT (3). Whatever a cursor says, the tenant clause applies to every page.
        if (q.cursor && isGrpcServiceError(err) && [2, 3].includes(Number(err.code)))
          throw new ApiError(400, 'request.invalid_cursor', 'cursor is not one this service issued');
        throw err;
      });
    const runs = (page.executions ?? []).map((e) => {
      const sa = decodeTypedSearchAttributes(e.searchAttributes?.indexedFields);
      return {
        runId: e.execution?.workflowId ?? '',
        profile: sa.get(AgentProfileKey) ?? null,
        status: sa.get(AgentStatusKey) ?? null,
        waitingReason: sa.get(AgentWaitingReasonKey) ?? null,
        executionStatus: executionStatusName(e.status),
        startedAt: timestamp(e.startTime),
        closedAt: timestamp(e.closeTime),
      };
    });
    const token = page.nextPageToken;
    return {
      runs,
      ...(token && token.length > 0 ? { nextCursor: Buffer.from(token).toString('base64url') } : {}),
    };
  });

  app.get<{ Params: { runId: string } }>('/v1/runs/:runId', async (req) => {
    const caller = o.callerOf(req);
    const run = await accessRun(client, caller, req.params.runId);
    const record = await o.store.getRun(req.params.runId);
    let view: RunView | undefined;
    try {
      view = await run.handle.query<RunView>(QUERY_NAMES.state);
    } catch {
      view = undefined; // closed past the worker's reach, or not yet pinned: the record answers
    }
    const operator = hasRole(caller, o.config.roles.internalEvents);
    return {
      runId: req.params.runId,
      executionStatus: run.executionStatus,
      tenant: caller.tenant,
      user: record?.userId ?? null,
      profile: record?.versions.profile ?? null,
      policy: record?.versions.policy ?? null,
      status: view?.status ?? record?.status ?? null,
      waitingReason: view?.waitingReason ?? record?.waitingReason ?? null,
      pendingAction: view?.pendingAction ?? null,
      /** What the pending decision approves, projected like public event data. */
      proposedArguments:
        view?.pendingArguments !== undefined
          ? projectPublicValue(view.pendingArguments, { obligations: view.obligations })
          : null,
      humanRequest: view?.humanRequest ?? null,
      decisions: view?.decisions ?? record?.decisions ?? [],
      output: view?.output ?? record?.output ?? null,
      terminalReason: view?.terminalReason ?? record?.terminalReason ?? null,
      createdAt: record?.createdAt ?? null,
      endedAt: record?.endedAt ?? null,
      /** A hint for the inbox: may this caller take the pending decision (the run still checks). */
      mayDecide:
        run.running &&
        mayDecide(o.composition, record?.versions.policy, record?.userId, caller, view?.pendingAction),
      ...(operator && view ? { view } : {}),
    };
  });

  app.get<{ Params: { runId: string }; Querystring: { view?: string; after?: string } }>(
    '/v1/runs/:runId/events',
    async (req, reply) => {
      const caller = o.callerOf(req);
      const run = await accessRun(client, caller, req.params.runId);
      const view = req.query.view === 'internal' ? 'internal' : 'public';
      if (view === 'internal' && !hasRole(caller, o.config.roles.internalEvents))
        throw new ApiError(
          403,
          'auth.role_missing',
          `internal events need one of the roles ${o.config.roles.internalEvents.join(', ')}`,
        );
      const lastId = req.headers['last-event-id'] ?? req.query.after;
      const afterSeq = lastId === undefined ? -1 : Number(lastId);
      if (!Number.isInteger(afterSeq) || afterSeq < -1)
        throw new ApiError(400, 'request.invalid', 'Last-Event-ID must be an event sequence');
      const slot = o.admission.openStream(caller);
      if ('code' in slot) throw new ApiError(429, slot.code, slot.message, slot.retryAfterSeconds);
      const stop = new AbortController();
      const onClose = () => stop.abort();
      req.raw.on('close', onClose);
      o.closing.addEventListener('abort', onClose, { once: true });
      reply.hijack();
      reply.raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      reply.raw.write(`retry: 1000\n\n`);
      try {
        await streamRunEvents(reply.raw, {
          store: o.store,
          runId: req.params.runId,
          feed: o.feeds.follow(
            req.params.runId,
            async () => (await run.handle.describe()).status.name === 'RUNNING',
          ),
          afterSeq,
          view,
          heartbeatMs: o.config.stream.heartbeatMs,
          signal: stop.signal,
        });
      } finally {
        slot.release();
        o.closing.removeEventListener('abort', onClose);
        reply.raw.end();
      }
    },
  );

  /** Sign a decision on the caller's behalf, send it by the `decide` update, answer with the run's outcome. */
  const decideFor = async (
    req: FastifyRequest<{ Params: { runId: string } }>,
    reply: FastifyReply,
    label: string,
    decision: (view: RunView) => RunDecision,
  ) => {
    const caller = o.callerOf(req);
    const run = await accessRun(client, caller, req.params.runId);
    if (!run.running)
      throw new ApiError(409, 'run.closed', `run ${req.params.runId} has ended (${run.executionStatus})`);
    const view = await run.handle.query<RunView>(QUERY_NAMES.state);
    const d = decision(view);
    const payload = signedPayload(o.delegateKey, view, d.signal, d.fields, d.pending, {
      onBehalfOf: onBehalfOf(caller),
    });
    const outcome = await sendDecision(run.handle, d.signal, payload);
    o.metrics.count('harness_decisions_total', {
      decision: label,
      outcome: outcome.accepted ? 'accepted' : 'refused',
    });
    if (!outcome.accepted) o.metrics.count('harness_refusals_total', { code: outcome.code });
    return reply.code(decisionStatus(outcome)).send(outcome);
  };

  app.post<{ Params: { runId: string } }>('/v1/runs/:runId/decisions', async (req, reply) => {
    const body = parse(DecisionBodySchema, req.body, 'body');
    return decideFor(req, reply, body.decision, (view) => runDecision(req.params.runId, view, body));
  });

  app.post<{ Params: { runId: string } }>('/v1/runs/:runId/cancel', async (req, reply) => {
    const body = parse(CancelBodySchema, req.body, 'body');
    return decideFor(req, reply, 'cancel', () => ({
      signal: 'cancelRun',
      fields: { reason: body.reason },
      pending: undefined,
    }));
  });
}

/** What the service vouches for when it signs on the caller's behalf. */
function onBehalfOf(caller: Caller) {
  return { sub: caller.user, kind: caller.kind, roles: [...caller.roles].slice(0, 20), ten: caller.tenant };
}

function runLinks(runId: string, executionStatus: string) {
  return {
    runId,
    executionStatus,
    links: {
      self: `/v1/runs/${encodeURIComponent(runId)}`,
      events: `/v1/runs/${encodeURIComponent(runId)}/events`,
    },
  };
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
