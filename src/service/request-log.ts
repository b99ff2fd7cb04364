import type { FastifyRequest } from 'fastify';

/** The requests whose 5xx answer is already logged with its cause. */
const logged = new WeakSet<FastifyRequest>();

/**
 * Logs a request answered with a server error as one structured JSON line (the request's logger
 * adds its `requestId`, also sent in the `x-request-id` header): the status, method, route and the
 * cause (an Error with its causes' messages and stacks, or a reason text). Never throws.
 */
export function logServerError(req: FastifyRequest, statusCode: number, cause: unknown): void {
  logged.add(req);
  const where = { statusCode, method: req.method, url: req.url.split('?')[0] };
  if (cause instanceof Error)
    req.log.error({ ...where, err: cause }, `answered ${statusCode}: ${cause.message}`);
  else req.log.error({ ...where, reason: String(cause) }, `answered ${statusCode}: ${String(cause)}`);
}

/** True when {@link logServerError} saw `req`. */
export function serverErrorLogged(req: FastifyRequest): boolean {
  return logged.has(req);
}
