import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.js';
import { AuthError } from './caller-identity.js';
import type { ServiceMetrics } from './service-metrics.js';

/**
 * Sets how `app` answers errors, each as `{ error: { code, message } }`: an {@link ApiError} with its
 * status (and Retry-After), an {@link AuthError} 401 with `WWW-Authenticate: Bearer` (both counted in
 * `harness_refusals_total`), any other client error (4xx: a malformed or oversized request)
 * `request.invalid`, anything else 500 `service.internal_error` without its message; an unknown
 * route 404 `route.not_found`.
 */
export function setErrorReplies(app: FastifyInstance, metrics: ServiceMetrics): void {
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
}
