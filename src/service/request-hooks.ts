import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AuthError, type Caller, type CallerIdentity } from './caller-identity.js';
import { logServerError, serverErrorLogged } from './request-log.js';
import type { ServiceMetrics } from './service-metrics.js';

/** Paths that need no bearer token. */
const OPEN_PATHS = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json', '/inbox']);

/**
 * The run page's path (`/runs/<runId>`, one segment): a page that holds no data; what it shows it
 * reads from the /v1 API with the visitor's token.
 */
const RUN_PAGE_PATH = /^\/runs\/[^/]+$/;

/** What the routes read of a request the hooks saw. */
export interface RequestFacts {
  /**
   * The verified caller of `req`.
   * @throws AuthError `auth.missing_token` when the request carried none (an open path).
   */
  readonly callerOf: (req: FastifyRequest) => Caller;
  /** When `req` arrived (epoch milliseconds; now, for a request the hooks did not see). */
  readonly arrivedAt: (req: FastifyRequest) => number;
}

/**
 * Adds the per-request hooks: each request's id in the `x-request-id` header, its arrival, its caller verified from its bearer token
 * (every path but the open ones: health, readiness, metrics, OpenAPI, the inbox page, the run page), and the
 * route's latency in `metrics` when the response is sent (and a log line for a 5xx nothing logged). A token that does not verify fails the
 * request with the {@link AuthError} of {@link CallerIdentity.verify} (401 by the error handler).
 */
export function addRequestHooks(
  app: FastifyInstance,
  identity: CallerIdentity,
  metrics: ServiceMetrics,
): RequestFacts {
  const callers = new WeakMap<FastifyRequest, Caller>();
  const started = new WeakMap<FastifyRequest, number>();
  const arrived = new WeakMap<FastifyRequest, number>();

  app.addHook('onRequest', async (req, reply) => {
    void reply.header('x-request-id', req.id);
    started.set(req, performance.now());
    arrived.set(req, Date.now());
    const path = req.url.split('?')[0] ?? '';
    if (OPEN_PATHS.has(path) || (req.method === 'GET' && RUN_PAGE_PATH.test(path))) return;
    callers.set(req, await identity.verify(req.headers.authorization));
  });
  app.addHook('onResponse', async (req, reply) => {
    if (reply.statusCode >= 500 && !serverErrorLogged(req))
      logServerError(req, reply.statusCode, `answered ${reply.statusCode} without an error (e.g. closing)`);
    const t0 = started.get(req);
    if (t0 !== undefined)
      metrics.observe(
        req.routeOptions.url ?? 'unknown',
        req.method,
        reply.statusCode,
        performance.now() - t0,
      );
  });
  return {
    arrivedAt: (req) => arrived.get(req) ?? Date.now(),
    callerOf: (req) => {
      const c = callers.get(req);
      if (!c) throw new AuthError('auth.missing_token', 'send a bearer token');
      return c;
    },
  };
}
