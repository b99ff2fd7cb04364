/**
 * Timing spans for the concurrency bench (bench/tools/service-concurrency.ts): where a request's time
 * goes inside the run service. It wraps, on the service's own `Client` instance only (the bare arm
 * uses another instance), the Temporal calls the service makes, and adds Fastify hooks that time each
 * request from its arrival to its response. Bench-only instrumentation; the service is unchanged.
 */
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';

/** Durations (ms) by span name: `temporal.<call>` and `http.<METHOD route>`. */
export type Spans = Map<string, number[]>;

function record(spans: Spans, name: string, ms: number): void {
  let v = spans.get(name);
  if (!v) spans.set(name, (v = []));
  v.push(ms);
}

function timed<T>(spans: Spans, name: string, f: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  return f().finally(() => record(spans, name, performance.now() - t0));
}

/** Wrap the Temporal calls the service makes on `client` (this instance only) to time them. */
export function timeTemporalCalls(client: Client, spans: Spans): void {
  const wf = client.workflow;
  const count = wf.count.bind(wf);
  wf.count = (q) => timed(spans, 'temporal.count', () => count(q));
  const start = wf.start.bind(wf) as (...a: unknown[]) => Promise<unknown>;
  (wf as unknown as { start: unknown }).start = (...a: unknown[]) =>
    timed(spans, 'temporal.start', () => start(...a));
  const getHandle = wf.getHandle.bind(wf);
  wf.getHandle = ((...a: Parameters<typeof getHandle>) => {
    const h = getHandle(...a);
    const describe = h.describe.bind(h);
    h.describe = () => timed(spans, 'temporal.describe', describe);
    const query = h.query.bind(h) as (...q: unknown[]) => Promise<unknown>;
    (h as unknown as { query: unknown }).query = (...q: unknown[]) =>
      timed(spans, 'temporal.query', () => query(...q));
    const update = h.executeUpdate.bind(h) as (...u: unknown[]) => Promise<unknown>;
    (h as unknown as { executeUpdate: unknown }).executeUpdate = (...u: unknown[]) =>
      timed(spans, 'temporal.executeUpdate', () => update(...u));
    return h;
  }) as typeof wf.getHandle;
  const svc = client.workflowService;
  const list = svc.listWorkflowExecutions.bind(svc);
  (svc as unknown as { listWorkflowExecutions: unknown }).listWorkflowExecutions = (
    r: Parameters<typeof list>[0],
  ) => timed(spans, 'temporal.list', () => list(r));
}

/** Time every request of `app` from arrival (onRequest) to its response (onResponse). */
export function timeRequests(app: FastifyInstance, spans: Spans): void {
  const t0 = new WeakMap<object, number>();
  app.addHook('onRequest', (req, _reply, done) => {
    t0.set(req, performance.now());
    done();
  });
  app.addHook('onResponse', (req, reply, done) => {
    const s = t0.get(req);
    const route = `${req.method} ${req.routeOptions.url ?? '?'} ${reply.statusCode}`;
    if (s !== undefined) record(spans, `http.${route}`, performance.now() - s);
    done();
  });
}
