import type { Client } from '@temporalio/client';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { AgentRunComposition } from '../workflows/index.js';
import type { DecisionKey } from '../client/decisions/decision-key.js';
import type { EvidenceStore } from '../activities/store/index.js';
import { Admission } from './admission.js';
import { ApiError } from './api-error.js';
import { openApiDocument } from './api-schemas.js';
import { AuthError, CallerIdentity, type Caller } from './caller-identity.js';
import { INBOX_HEADERS } from './inbox-csp.js';
import { INBOX_HTML } from './inbox-page.js';
import { RunEventFeeds } from './run-event-feed.js';
import { registerRunRoutes } from './run-routes.js';
import { requireIssuerAndAudience, type ServiceConfig } from './service-config.js';
import { ServiceMetrics } from './service-metrics.js';
import type { JSONWebKeySet } from 'jose';

export interface RunServiceOptions {
  readonly client: Client;
  readonly store: EvidenceStore;
  /** The app's profiles and policies (to resolve and check what a start names). */
  readonly composition: AgentRunComposition;
  readonly taskQueue: string;
  readonly config: ServiceConfig;
  /** The public keys bearer tokens verify against (the config's `jwksFile`, read). */
  readonly jwks: JSONWebKeySet;
  /** The service's delegate decision key (the config's `delegateKeyFile`, loaded). */
  readonly delegateKey: DecisionKey;
  /**
   * Local development (`harness serve --dev`): the config may leave out `identity.issuer` and
   * `identity.audience`. Never in production.
   */
  readonly dev?: boolean;
}

/** Paths that need no bearer token. */
const OPEN_PATHS = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json', '/inbox']);

/** Largest request body (bytes): a task, a decision. */
export const MAX_BODY_BYTES = 256 * 1024;

/**
 * How long closing the service waits for handlers still running (a Temporal call in its client's
 * retry backoff can take seconds). Past it the service closes anyway.
 */
const CLOSE_WAIT_MS = 15_000;

/** Resolves when every promise settled or `ms` passed, whichever is first. Never rejects. */
async function settledWithin(promises: readonly Promise<unknown>[], ms: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}

/**
 * The run service (`harness serve`, docs/api.md): an HTTP API over the harness client with identity
 * (bearer JWTs), tenancy and per-user scope (a caller sees and decides only the runs in its scope;
 * others answer 404), admission limits (429 with Retry-After), public events as Server-Sent Events, decisions signed on
 * the caller's behalf by the service's delegate key (the run still checks them), Prometheus metrics,
 * an OpenAPI document and the approval inbox page. Returns the Fastify instance, not listening yet.
 * Within a tenant, each caller sees its scope only (docs/api.md, "Scope").
 * @throws HarnessError `service.config_invalid` when the config has no `identity.issuer` or
 *   `identity.audience` and `dev` is not set.
 */
export function createRunService(o: RunServiceOptions): FastifyInstance {
  requireIssuerAndAudience(o.config, o.dev === true);
  const app = Fastify({ logger: false, bodyLimit: MAX_BODY_BYTES, return503OnClosing: true });
  const identity = new CallerIdentity({
    jwks: o.jwks,
    algorithms: o.config.identity.algorithms,
    ...(o.config.identity.issuer !== undefined ? { issuer: o.config.identity.issuer } : {}),
    ...(o.config.identity.audience !== undefined ? { audience: o.config.identity.audience } : {}),
  });
  const metrics = new ServiceMetrics();
  const admission = new Admission(o.config.limits);
  const closing = new AbortController();
  const feeds = new RunEventFeeds({ store: o.store, pollMs: o.config.stream.pollMs });
  const callers = new WeakMap<FastifyRequest, Caller>();
  const started = new WeakMap<FastifyRequest, number>();
  const arrived = new WeakMap<FastifyRequest, number>();

  app.addHook('onRequest', async (req) => {
    started.set(req, performance.now());
    arrived.set(req, Date.now());
    const path = req.url.split('?')[0] ?? '';
    if (OPEN_PATHS.has(path)) return;
    callers.set(req, await identity.verify(req.headers.authorization));
  });
  app.addHook('onResponse', async (req, reply) => {
    const t0 = started.get(req);
    if (t0 !== undefined)
      metrics.observe(
        req.routeOptions.url ?? 'unknown',
        req.method,
        reply.statusCode,
        performance.now() - t0,
      );
  });
  // Handlers still running when the service closes (a caller that went away does not stop its
  // handler): close waits for them, so the caller can close the Temporal connection and the store
  // after it without a call of ours still in flight or in its client's retry backoff.
  const running = new Set<Promise<unknown>>();
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function tracked(this: FastifyInstance, req, reply) {
      const result: unknown = handler.call(this, req, reply);
      if (result instanceof Promise) {
        running.add(result);
        void result.then(
          () => running.delete(result),
          () => running.delete(result),
        );
      }
      return result;
    };
  });
  app.addHook('onClose', async () => {
    closing.abort();
    await feeds.close();
    await settledWithin([...running], CLOSE_WAIT_MS);
  });

  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof ApiError) {
      metrics.count('harness_refusals_total', { code: err.code });
      if (err.retryAfterSeconds !== undefined)
        void reply.header('retry-after', String(err.retryAfterSeconds));
      return reply.code(err.status).send({ error: { code: err.code, message: err.message } });
    }
    if (err instanceof AuthError) {
      metrics.count('harness_refusals_total', { code: err.code });
      void reply.header('www-authenticate', 'Bearer');
      return reply.code(401).send({ error: { code: err.code, message: err.message } });
    }
    const status = (err as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500)
      return reply.code(status).send({ error: { code: 'request.invalid', message: (err as Error).message } });
    return reply
      .code(500)
      .send({ error: { code: 'service.internal_error', message: 'internal error; see the service log' } });
  });
  app.setNotFoundHandler((_req, reply) =>
    reply.code(404).send({ error: { code: 'route.not_found', message: 'no such route' } }),
  );

  app.get('/healthz', () => Promise.resolve({ ok: true }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await o.client.workflowService.getSystemInfo({});
      await o.store.listRuns({ limit: 1 });
      return { ready: true };
    } catch (err) {
      return reply.code(503).send({ ready: false, message: (err as Error).message.slice(0, 200) });
    }
  });
  app.get('/metrics', async (_req, reply) => {
    const gauges: { name: string; labels?: Record<string, string>; value: number; help: string }[] = [
      { name: 'harness_sse_clients', value: admission.openStreams, help: 'Open event streams' },
      { name: 'harness_sse_followed_runs', value: feeds.size, help: 'Runs with a shared store poller' },
    ];
    try {
      const counts = await o.client.workflow.count(`WorkflowType = 'agentRun' GROUP BY ExecutionStatus`);
      for (const g of counts.groups)
        gauges.push({
          name: 'harness_runs',
          labels: { status: String(g.groupValues[0] ?? 'unknown') },
          value: g.count,
          help: 'Agent runs by Temporal execution status',
        });
    } catch {
      // visibility unavailable: the scrape still answers with what the process knows
    }
    return reply.type('text/plain; version=0.0.4').send(metrics.render(gauges));
  });
  app.get('/openapi.json', () => Promise.resolve(openApiDocument()));
  app.get('/inbox', (_req, reply) =>
    reply.headers(INBOX_HEADERS).type('text/html; charset=utf-8').send(INBOX_HTML),
  );

  registerRunRoutes(app, {
    client: o.client,
    store: o.store,
    composition: o.composition,
    taskQueue: o.taskQueue,
    delegateKey: o.delegateKey,
    config: o.config,
    admission,
    metrics,
    feeds,
    closing: closing.signal,
    arrivedAt: (req) => arrived.get(req) ?? Date.now(),
    callerOf: (req) => {
      const c = callers.get(req);
      if (!c) throw new AuthError('auth.missing_token', 'send a bearer token');
      return c;
    },
  });
  return app;
}
