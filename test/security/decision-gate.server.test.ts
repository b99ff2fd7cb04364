import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import {
  createTokenIssuer,
  serviceApi,
  startTestService,
  updatesInHistory,
  waitForRun,
  type TokenIssuer,
} from '../support/run-service.js';

/**
 * Decisions through the run service (docs/api.md, "Decisions"; docs/security.md, "HTTP"), on the real
 * service and dev server: what the caller's token certainly may not decide is refused by the service
 * with 403 and its reason code, and decisions are rate-limited per caller (429 with Retry-After);
 * neither reaches the run (no update in its history, no refused signal in its state).
 */
describe('run service decision gate and rate', { timeout: 180_000 }, () => {
  let h: HarnessFixture;
  let issuer: TokenIssuer;
  let service: { app: FastifyInstance; url: string };
  const api = serviceApi(() => service.url);
  const tenant = `gate${Date.now().toString(36)}`;
  const t = {} as Record<'alice' | 'amy' | 'ops', string>;

  beforeAll(async () => {
    h = await createHarnessFixture('security-gate');
    issuer = await createTokenIssuer();
    service = await startTestService(h, issuer, {
      limits: { decisionsPerUser: { perSecond: 0.01, burst: 3 } },
    });
    const token = (sub: string, roles: string[], kind: string) => issuer.token({ sub, tenant, roles, kind });
    t.alice = await token('C1001', ['requester'], 'customer');
    t.amy = await token('amy@shop', ['refund_approver', 'approver'], 'approver');
    t.ops = await token('ops@shop', ['operator'], 'operator');
  });
  afterAll(async () => {
    await service?.app.close();
    await h?.close();
  });

  it('refuses what the token may not decide (403) and past the caller rate (429); none of it reaches the run', async () => {
    const started = await api(t.alice, 'POST', '/v1/runs', {
      profile: 'refund.graph',
      task: { message: 'refund ORD-1001 please', customerId: 'C1001' },
      modelRoute: 'scripted/refund',
    });
    expect(started.status).toBe(201);
    const runId = started.body.runId!;
    const waiting = await waitForRun(api, t.ops, runId, (r) =>
      ['confirmation', 'human'].includes(r.pendingAction?.kind ?? ''),
    );
    const actionId = waiting.pendingAction!.actionId;
    const decide = (who: keyof typeof t, body: Record<string, unknown>) =>
      api(t[who], 'POST', `/v1/runs/${runId}/decisions`, body);

    // The requester, a customer: approving, rejecting or confirming an approval is certainly refused.
    expect(await decide('alice', { decision: 'approve', actionId })).toMatchObject({
      status: 403,
      body: { error: { code: 'decision.customer_cannot_approve' } },
    });
    expect(await decide('alice', { decision: 'reject', actionId, reason: 'no' })).toMatchObject({
      status: 403,
      body: { error: { code: 'decision.customer_cannot_approve' } },
    });
    expect(await decide('alice', { decision: 'confirm', actionId })).toMatchObject({
      status: 403,
      body: { error: { code: 'decision.not_a_confirmation' } },
    });
    // An operator without a role the policy's rule asks for.
    expect(await decide('ops', { decision: 'approve', actionId })).toMatchObject({
      status: 403,
      body: { error: { code: 'decision.role_missing' } },
    });
    // The requester's bucket (burst 3) is empty now: 429 with Retry-After, before the run is looked up.
    const limited = await decide('alice', { decision: 'approve', actionId });
    expect(limited).toMatchObject({ status: 429, body: { error: { code: 'rate.decisions_user' } } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const limitedCancel = await api(t.alice, 'POST', `/v1/runs/${runId}/cancel`, { reason: 'stop' });
    expect(limitedCancel.status).toBe(429);
    // Nothing of it reached the run.
    expect(await updatesInHistory(h, runId)).toBe(0);
    const view = (await api(t.ops, 'GET', `/v1/runs/${runId}`)).body.view!;
    expect(view.signalRejections).toEqual([]);
    expect(view.decisions ?? []).toEqual([]);

    // Another caller's bucket is its own; an approver the rule names decides, and that reaches the run.
    const approved = await decide('amy', { decision: 'approve', actionId, reason: 'checked' });
    expect(approved).toMatchObject({ status: 200, body: { accepted: true, principal: 'amy@shop' } });
    expect(await updatesInHistory(h, runId)).toBe(1);
    // The same approver again: 409 (nothing waits now) or 403, never another update.
    const again = await decide('amy', { decision: 'approve', actionId });
    expect([403, 409]).toContain(again.status);
    await waitForRun(api, t.alice, runId, (r) => r.status === 'succeeded');
    expect(await updatesInHistory(h, runId)).toBe(1);
  });
});
