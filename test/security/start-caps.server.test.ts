import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import {
  createTokenIssuer,
  serviceApi,
  startTestService,
  waitForRun,
  type TokenIssuer,
} from '../support/run-service.js';

/**
 * Caps on what an HTTP starter may ask for (docs/api.md, "Caps"; docs/security.md, "HTTP"), on the
 * real service and dev server: a budget above the caller's cap and a model route the caller may not
 * name are refused with their reason codes and nothing is started; the run's tenant and user are the
 * token's, whatever the body says.
 */
describe('run service start caps', { timeout: 180_000 }, () => {
  let h: HarnessFixture;
  let issuer: TokenIssuer;
  let service: { app: FastifyInstance; url: string };
  const api = serviceApi(() => service.url);
  const stamp = Date.now().toString(36);
  const tenant = `caps${stamp}`;
  const bigTenant = `capsbig${stamp}`;
  const t = {} as Record<'customer' | 'bigOps' | 'bigCustomer', string>;
  const hello = { profile: 'support.answer', task: { message: 'hello' } };

  beforeAll(async () => {
    h = await createHarnessFixture('security-caps');
    issuer = await createTokenIssuer();
    service = await startTestService(h, issuer, {
      caps: {
        default: { budget: { maxCostUsd: 5 }, modelRoutes: ['scripted/refund'] },
        tenants: { [bigTenant]: { budget: { maxCostUsd: 50 } } },
        roles: { requester: { budget: { maxCostUsd: 1 } } },
      },
    });
    t.customer = await issuer.token({ sub: 'C1001', tenant, roles: ['requester'], kind: 'customer' });
    t.bigOps = await issuer.token({
      sub: 'ops@big',
      tenant: bigTenant,
      roles: ['operator'],
      kind: 'operator',
    });
    t.bigCustomer = await issuer.token({
      sub: 'C3003',
      tenant: bigTenant,
      roles: ['requester'],
      kind: 'customer',
    });
  });
  afterAll(async () => {
    await service?.app.close();
    await h?.close();
  });

  /** Runs of a tenant that Temporal or the evidence store knows of. */
  const runsOf = async (tn: string) => ({
    temporal: (await h.t.client.workflow.count(`WorkflowType = 'agentRun' AND AgentTenant = '${tn}'`)).count,
    store: (await h.composition.store.listRuns({ tenantId: tn, limit: 10 })).length,
  });

  it('refuses a budget over the cap and a model route not allowed, and starts nothing', async () => {
    const refusals = [
      [{ ...hello, budget: { maxCostUsd: 1e12 } }, 'run.budget_over_cap'],
      [{ ...hello, budget: { maxCostUsd: 2 } }, 'run.budget_over_cap'], // the requester role's cap is 1
      [{ ...hello, budget: { maxSteps: 100_000 } }, 'run.budget_over_cap'], // the default cap: 50
      [{ ...hello, budget: { perToolLimit: { 'refund.create': 1_000 } } }, 'run.budget_over_cap'],
      [{ ...hello, modelRoute: 'scripted/other' }, 'run.model_route_not_allowed'],
      [{ ...hello, modelRoute: 'openai/gpt-expensive' }, 'run.model_route_not_allowed'],
    ] as const;
    for (const [body, code] of refusals) {
      const r = await api(t.customer, 'POST', '/v1/runs', body, {
        'idempotency-key': `cap-${code}-${Math.random()}`,
      });
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body.error?.code).toBe(code);
    }
    // Who the run is for is not the body's to say.
    for (const extra of [{ tenantId: 'other' }, { userId: 'someone' }, { tenant: 'other' }]) {
      const r = await api(t.customer, 'POST', '/v1/runs', { ...hello, ...extra });
      expect(r).toMatchObject({ status: 400, body: { error: { code: 'request.invalid' } } });
    }
    await new Promise((r) => setTimeout(r, 1_500)); // visibility lags a moment
    expect(await runsOf(tenant)).toEqual({ temporal: 0, store: 0 });
  });

  it("admits what the caller's cap allows: the tenant's over the default, a start role's within it", async () => {
    // An operator of the big tenant: the tenant's cap (50), above the default (5).
    const ops = await api(t.bigOps, 'POST', '/v1/runs', {
      ...hello,
      modelRoute: 'scripted/refund',
      budget: { maxCostUsd: 40 },
    });
    expect(ops.status).toBe(201);
    // A customer of the same tenant: its requester role's cap (1) within the tenant's.
    const over = await api(t.bigCustomer, 'POST', '/v1/runs', { ...hello, budget: { maxCostUsd: 40 } });
    expect(over.body.error?.code).toBe('run.budget_over_cap');
    const within = await api(t.bigCustomer, 'POST', '/v1/runs', {
      ...hello,
      task: { message: 'hello', userId: 'C9999', tenantId: 'other' },
      budget: { maxCostUsd: 0.5 },
    });
    expect(within.status).toBe(201);
    // The run is the token's: its user and tenant, whatever the task says.
    const run = await waitForRun(api, t.bigCustomer, within.body.runId!, (r) => r.status !== null);
    expect(run).toMatchObject({ user: 'C3003', tenant: bigTenant });
    const opsView = await api(t.bigOps, 'GET', `/v1/runs/${within.body.runId!}`);
    expect(opsView.body.user).toBe('C3003');
  });
});
