import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type { EvidenceStore } from '../activities/store/index.js';
import type { Admission } from './admission.js';
import { openApiDocument } from './openapi-document.js';
import { INBOX_HEADERS, RUN_PAGE_HEADERS } from './page-csp.js';
import { INBOX_HTML } from './inbox-page.js';
import { RUN_PAGE_HTML } from './run-page.js';
import { registerReadiness } from './readiness.js';
import type { RunEventFeeds } from './run-event-feed.js';
import type { ServiceMetrics } from './service-metrics.js';

/** What the open routes read. */
export interface OpenRoutesOptions {
  readonly client: Client;
  readonly store: EvidenceStore;
  readonly admission: Admission;
  readonly feeds: RunEventFeeds;
  readonly metrics: ServiceMetrics;
}

/**
 * Registers the routes that need no bearer token: `/healthz`; `/readyz` (503 naming what is not
 * ready: Temporal, the store, or the namespace's search attributes; readiness.ts); `/metrics` (Prometheus text: the process's
 * counters and gauges, and runs by execution status when visibility answers, left out when not);
 * `/openapi.json`; the approval inbox page `/inbox`; and the run page `/runs/<runId>` (the page holds
 * no data: it reads the API with the visitor's token, so the API's identity and tenancy decide).
 */
export function registerOpenRoutes(app: FastifyInstance, o: OpenRoutesOptions): void {
  app.get('/healthz', () => Promise.resolve({ ok: true } as const));
  registerReadiness(app, o.client, o.store);
  app.get('/metrics', async (_req, reply) => {
    const gauges: { name: string; labels?: Record<string, string>; value: number; help: string }[] = [
      { name: 'harness_sse_clients', value: o.admission.openStreams, help: 'Open event streams' },
      { name: 'harness_sse_followed_runs', value: o.feeds.size, help: 'Runs with a shared store poller' },
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
    return reply.type('text/plain; version=0.0.4').send(o.metrics.render(gauges));
  });
  app.get('/openapi.json', () => Promise.resolve(openApiDocument()));
  app.get('/inbox', (_req, reply) =>
    reply.headers(INBOX_HEADERS).type('text/html; charset=utf-8').send(INBOX_HTML),
  );
  app.get('/runs/:runId', (_req, reply) =>
    reply.headers(RUN_PAGE_HEADERS).type('text/html; charset=utf-8').send(RUN_PAGE_HTML),
  );
}
