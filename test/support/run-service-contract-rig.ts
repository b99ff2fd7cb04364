import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { createHarnessFixture, type HarnessFixture } from './harness.js';
import { createTokenIssuer, serviceApi, startTestService, type TokenIssuer } from './run-service.js';
import { openApiContract, sseAnswer, type OpenApiDoc } from './openapi-contract.js';

/**
 * The rig of the run service contract test (test/e2e/run-service-contract.test.ts): a harness
 * fixture, the service and a rate-tight second service on it, one token per role, and the OpenAPI
 * checks. The `let` bindings are live: `useRunServiceContract()` registers the `beforeAll` that sets
 * them and the `afterAll` that closes them, so they are valid only inside that describe's tests.
 * `check` and `missing` accumulate over the file: `missing` names the statuses no `check` has seen.
 */
let h: HarnessFixture;
let issuer: TokenIssuer;
export let service: { app: FastifyInstance; url: string };
export let tight: { app: FastifyInstance; url: string };
let doc: OpenApiDoc;
export const tokens = {} as Record<'customer' | 'approver' | 'viewer' | 'operator' | 'other', string>;
export const refund = {
  profile: 'refund.graph',
  task: { message: 'refund ORD-1001 please', customerId: 'C1001' },
  modelRoute: 'scripted/refund',
};
export const support = {
  profile: 'support.answer',
  task: { message: 'hello' },
  modelRoute: 'scripted/refund',
};
export const api = serviceApi(() => service.url);
export const tightApi = serviceApi(() => tight.url);

export const { check, missing } = openApiContract(() => doc);
export const sse = (path: string, token: string, extra: Record<string, string> = {}) =>
  sseAnswer(`${service.url}${path}`, token, extra);

/** Registers the hooks that start the fixture and both services before the tests and close them after. */
export function useRunServiceContract(): void {
  beforeAll(async () => {
    h = await createHarnessFixture('run-service-contract');
    issuer = await createTokenIssuer();
    service = await startTestService(h, issuer, { stream: { pollMs: 50, heartbeatMs: 1_000 } });
    tight = await startTestService(h, issuer, {
      limits: {
        startsPerUser: { perSecond: 0.01, burst: 2 },
        decisionsPerUser: { perSecond: 0.01, burst: 1 },
        inspectionsPerUser: { perSecond: 0.01, burst: 1 },
        sseConnectionsPerUser: 1,
      },
    });
    const t = (sub: string, tenant: string, roles: string[], kind: string) =>
      issuer.token({ sub, tenant, roles, kind });
    const tenant = `contract-${Date.now().toString(36)}`;
    tokens.customer = await t('C1001', tenant, ['requester'], 'customer');
    tokens.approver = await t('dana@acme', tenant, ['refund_approver', 'approver'], 'approver');
    tokens.viewer = await t('vic@acme', tenant, ['viewer'], 'operator');
    tokens.operator = await t('ops@acme', tenant, ['operator'], 'operator');
    tokens.other = await t('olga@globex', 'globex', ['requester', 'operator'], 'operator');
    doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as OpenApiDoc;
  });
  afterAll(async () => {
    await service?.app.close();
    await tight?.app.close();
    await h?.close();
  });
}

/** Statuses the document lists that this test does not drive, and where they are driven. */
export const NOT_DRIVEN = new Set([
  '* 500', // needs a failing Temporal: test/unit/service/server-error-log.test.ts
  '* 503', // closing, or no search attributes: test/e2e/search-attributes.test.ts (/readyz, a start)
  'post /v1/runs/{runId}/decisions 422', // no such refusal reaches the run past the service's gate here
  'post /v1/runs/{runId}/cancel 422',
  'post /v1/runs/{runId}/cancel 403', // the showcase policies let any operator cancel
  'post /v1/runs/{runId}/decisions 504', // an update past its deadline: test/unit/service/decision-timeout.test.ts
  'post /v1/runs/{runId}/cancel 504',
  // The proof endpoints' caps and budget: test/e2e/proof-endpoints.test.ts (services configured for them).
  'get /v1/runs/{runId}/verification 413',
  'get /v1/runs/{runId}/verification 429',
  'get /v1/runs/{runId}/bundle 413',
  'get /v1/runs/{runId}/bundle 429',
  // The erasure endpoint: test/e2e/run-service-erase.test.ts drives and checks these against the
  // document (a finished run erased, its refusals, its rate); 401, 413 and 415 are the shared hooks'.
  'post /v1/runs/{runId}/erase 200',
  'post /v1/runs/{runId}/erase 400',
  'post /v1/runs/{runId}/erase 401',
  'post /v1/runs/{runId}/erase 403',
  'post /v1/runs/{runId}/erase 404',
  'post /v1/runs/{runId}/erase 409',
  'post /v1/runs/{runId}/erase 413',
  'post /v1/runs/{runId}/erase 415',
  'post /v1/runs/{runId}/erase 429',
]);
