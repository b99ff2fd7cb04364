import type { FastifyInstance } from 'fastify';
import type { RunView } from '../contract/run-view.js';
import { projectPublicValue } from '../client/evidence/public-projection.js';
import { ApiError } from './api-error.js';
import { decisionContext, mayTakePending } from './decision-gate.js';
import { registerDecisionRoutes } from './decision-routes.js';
import { streamRunEvents } from './event-stream.js';
import { registerListRoute } from './list-route.js';
import { registerContextRoute } from './run-context-route.js';
import { registerInvocationsRoute } from './run-invocations-route.js';
import { registerPayloadRoute } from './run-payload-route.js';
import { registerProofRoutes } from './run-proof-routes.js';
import { registerEraseRoute } from './run-erase-route.js';
import { accessRun, queryView } from './run-access.js';
import { hasRole, type RunRoutesOptions } from './route-options.js';
import type { RunDetail } from './api-responses.js';
import { registerStartRoute } from './start-route.js';

export type { RunRoutesOptions } from './route-options.js';

/**
 * The /v1/runs routes (docs/api.md): start, list, read, events, invocations and their payloads,
 * context packages, proof, erasure, decisions and cancellation. Every
 * route that names a run looks it up in the caller's scope first (`accessRun`): out of scope is the
 * same 404 as no run at all.
 */
export function registerRunRoutes(app: FastifyInstance, o: RunRoutesOptions): void {
  registerStartRoute(app, o);
  registerListRoute(app, o);
  registerDecisionRoutes(app, o);
  registerInvocationsRoute(app, o);
  registerContextRoute(app, o);
  registerPayloadRoute(app, o);
  registerProofRoutes(app, o);
  registerEraseRoute(app, o);

  app.get<{ Params: { runId: string } }>('/v1/runs/:runId', async (req): Promise<RunDetail> => {
    const caller = o.callerOf(req);
    const run = await accessRun(o, caller, req.params.runId);
    const record = await o.store.getRun(req.params.runId);
    // Closed past the worker's reach, or not yet pinned: the record answers.
    const view: RunView | undefined = run.view ?? (await queryView(run.handle));
    const operator = caller.kind === 'operator' && hasRole(caller, o.config.roles.internalEvents);
    return {
      runId: req.params.runId,
      executionStatus: run.executionStatus,
      tenant: caller.tenant,
      user: record?.userId ?? run.user ?? null,
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
        view !== undefined &&
        mayTakePending(caller, decisionContext(o.composition, view, run.user ?? record?.userId)),
      ...(operator && view ? { view } : {}),
    };
  });

  app.get<{ Params: { runId: string }; Querystring: { view?: string; after?: string } }>(
    '/v1/runs/:runId/events',
    async (req, reply) => {
      const caller = o.callerOf(req);
      const run = await accessRun(o, caller, req.params.runId);
      const view = req.query.view === 'internal' ? 'internal' : 'public';
      if (
        view === 'internal' &&
        !(caller.kind === 'operator' && hasRole(caller, o.config.roles.internalEvents))
      )
        throw new ApiError(
          403,
          'auth.role_missing',
          `internal events need an operator with one of the roles ${o.config.roles.internalEvents.join(', ')}`,
        );
      const lastId = req.headers['last-event-id'] ?? req.query.after;
      const afterSeq = lastId === undefined ? -1 : Number(lastId);
      if (!Number.isInteger(afterSeq) || afterSeq < -1)
        throw new ApiError(400, 'request.invalid', 'Last-Event-ID must be an event sequence');
      const slot = o.admission.openStream(caller);
      if ('code' in slot) throw new ApiError(429, slot.code, slot.message, slot.retryAfterSeconds);
      const stream = o.streams.open();
      const onClose = () => stream.abort();
      req.raw.on('close', onClose);
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
          signal: stream.signal,
        });
      } finally {
        slot.release();
        stream.release();
        req.raw.off('close', onClose);
        reply.raw.end();
      }
    },
  );
}
