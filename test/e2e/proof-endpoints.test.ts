import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { createTokenIssuer, startTestService, type TokenIssuer } from '../support/run-service.js';

type Service = { app: FastifyInstance; url: string };

/**
 * The proof endpoints are bounded (docs/api.md, "Proof endpoints"): a run over the service's size cap
 * (events or bytes) is 413 `proof.too_large` naming the limit and the CLI, and each caller has a
 * request budget (429 `rate.proof_user` with Retry-After), against a real run on the dev server.
 */
describe('bounded proof endpoints', { timeout: 180_000 }, () => {
  let h: HarnessFixture;
  let issuer: TokenIssuer;
  let fewEvents: Service;
  let fewBytes: Service;
  let slow: Service;
  let runId = '';
  let operator = '';
  let otherOperator = '';
  const tenant = `proof${Date.now().toString(36)}`;

  const get = async (s: Service, token: string, path: string) => {
    const res = await fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: (await res.json()) as { error?: Record<string, unknown> } & Record<string, unknown>,
    };
  };

  beforeAll(async () => {
    h = await createHarnessFixture('proof-endpoints');
    issuer = await createTokenIssuer();
    fewEvents = await startTestService(h, issuer, { proof: { maxEvents: 10 } });
    fewBytes = await startTestService(h, issuer, { proof: { maxBytes: 4096 } });
    slow = await startTestService(h, issuer, { proof: { perUser: { perSecond: 0.01, burst: 2 } } });
    const customer = await issuer.token({ sub: 'C1001', tenant, roles: ['requester'], kind: 'customer' });
    operator = await issuer.token({ sub: 'ops@shop', tenant, roles: ['operator'], kind: 'operator' });
    otherOperator = await issuer.token({ sub: 'ops2@shop', tenant, roles: ['operator'], kind: 'operator' });
    const res = await fetch(`${fewEvents.url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${customer}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        profile: 'refund.graph',
        task: { message: 'refund ORD-1001 please', customerId: 'C1001' },
        modelRoute: 'scripted/refund',
      }),
    });
    expect(res.status).toBe(201);
    runId = ((await res.json()) as { runId: string }).runId;
    // Waiting for its approval: its events up to the wait are stored.
    for (let i = 0; i < 600; i++) {
      if ((await get(fewEvents, operator, `/v1/runs/${runId}`)).body.pendingAction) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(async () => {
    for (const s of [fewEvents, fewBytes, slow]) await s?.app.close();
    await h?.close();
  });

  it('refuses a run over the event cap with 413 proof.too_large, naming the limit and the CLI', async () => {
    for (const path of ['verification', 'bundle']) {
      const r = await get(fewEvents, operator, `/v1/runs/${runId}/${path}`);
      expect(r.status).toBe(413);
      expect(r.body.error).toMatchObject({ code: 'proof.too_large', limit: 'events', max: 10 });
      expect(r.body.error?.message).toContain(`harness verify ${runId}`);
    }
  });

  it('refuses a run over the byte cap the same way', async () => {
    const r = await get(fewBytes, operator, `/v1/runs/${runId}/verification`);
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({ code: 'proof.too_large', limit: 'bytes', max: 4096 });
  });

  it("answers within the caller's budget, then 429 rate.proof_user with Retry-After; another caller has its own", async () => {
    expect((await get(slow, operator, `/v1/runs/${runId}/verification`)).status).toBe(200);
    const bundle = await get(slow, operator, `/v1/runs/${runId}/bundle`);
    expect(bundle.status).toBe(200);
    // The download withholds erasable values in the whole bundle (docs/evidence-chain.md, "Withheld
    // outside the chain"): the order tool's phone is in no section, its payloads decoded.
    const text = JSON.stringify(bundle.body);
    const decoded = [...text.matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)].map((m) =>
      Buffer.from(m[1]!, 'base64').toString('utf8'),
    );
    expect(`${text}${decoded.join('')}`).not.toContain('13800001001');
    expect(decoded.join('')).toMatch(/\[withheld by policy #[0-9a-f]{32}\]/);
    const refused = await get(slow, operator, `/v1/runs/${runId}/verification`);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate.proof_user' });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await get(slow, otherOperator, `/v1/runs/${runId}/verification`)).status).toBe(200);
  });
});
