import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.js';
import { AuthError } from './caller-identity.js';
import { isHarnessError } from '../contract/errors.js';
import { logServerError } from './request-log.js';
import type { ServiceMetrics } from './service-metrics.js';
import { MAX_BODY_BYTES } from './body-limit.js';

/**
 * Sets how `app` answers errors, each as `{ error: { code, message, ... } }`: an {@link ApiError} with
 * its status (and Retry-After) and its details, an {@link AuthError} 401 with `WWW-Authenticate:
 * Bearer` (both counted in `harness_refusals_total`), a body over {@link MAX_BODY_BYTES} 413
 * `request.too_large`, any other client error (4xx: a malformed request) `request.invalid`, a namespace without the harness's search attributes (a start's
 * `temporal.search_attributes_missing` or `_conflict`) 503 with that code and message, anything else 500
 * `service.internal_error` without its message but with the request id (`requestId`, also the
 * `x-request-id` header); every 5xx is logged with its cause (request-log.ts). An unknown route 404
 * `route.not_found`.
 */
export function setErrorReplies(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.setErrorHandler((err, req, reply) => {
    if (err instanceof ApiError) {
      metrics.count('harness_refusals_total', { code: err.code });
      if (err.retryAfterSeconds !== undefined)
        void reply.header('retry-after', String(err.retryAfterSeconds));
      return reply.code(err.status).send({ error: { ...err.details, code: err.code, message: err.message } });
    }
    if (err instanceof AuthError) {
      metrics.count('harness_refusals_total', { code: err.code });
      void reply.header('www-authenticate', 'Bearer');
      return reply.code(401).send({ error: { code: err.code, message: err.message } });
    }
    const status = (err as { statusCode?: number }).statusCode;
    if (status === 413)
      return reply.code(413).send({
        error: { code: 'request.too_large', message: `the request body is over ${MAX_BODY_BYTES} bytes` },
      });
    if (status !== undefined && status >= 400 && status < 500)
      return reply.code(status).send({ error: { code: 'request.invalid', message: (err as Error).message } });
    if (
      isHarnessError(err, 'temporal.search_attributes_missing') ||
      isHarnessError(err, 'temporal.search_attributes_conflict')
    ) {
      logServerError(req, 503, err);
      return reply.code(503).send({ error: { code: err.code, message: err.message, requestId: req.id } });
    }
    logServerError(req, 500, err);
    return reply.code(500).send({
      error: {
        code: 'service.internal_error',
        message: `internal error; see the service log (request ${req.id})`,
        requestId: req.id,
      },
    });
  });
  app.setNotFoundHandler((_req, reply) =>
    reply.code(404).send({ error: { code: 'route.not_found', message: 'no such route' } }),
  );
}
