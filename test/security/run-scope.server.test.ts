import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import {
  createTokenIssuer,
  readSse,
  serviceApi,
  startTestService,
  updatesInHistory,
  waitForRun,
  type TokenIssuer,
} from '../support/run-service.js';

/**
 * Per-user scope in the run service (docs/api.md, "Scope"; docs/security.md, "HTTP"), on the real
 * service and dev server: within one tenant, a customer reaches only the runs they requested, an
 * approver the runs they may decide (and their own, and those they decided), an operator the whole
 * tenant. Out of scope answers exactly like a run that does not exist, and nothing reaches the run.
 */
describe('run service scope', { timeout: 180_000 }, () => {
  let h: HarnessFixture;
  let issuer: TokenIssuer;
  let service: { app: FastifyInstance; url: string };
  const api = serviceApi(() => service.url);
  const tenant = `scope${Date.now().toString(36)}`;
  const t = {} as Record<'alice' | 'bob' | 'amy' | 'sam' | 'ops' | 'kindless', string>;
  const refund = {
    profile: 'refund.graph',
    task: { message: 'refund ORD-1001 please', customerId: 'C1001' },
    modelRoute: 'scripted/refund',
  };
  let runId: string;
  let actionId: string;

  beforeAll(async () => {
    h = await createHarnessFixture('security-scope');
    issuer = await createTokenIssuer();
    service = await startTestService(h, issuer, { stream: { pollMs: 50, heartbeatMs: 1_000 } });
    const token = (sub: string, roles: string[], kind?: string) =>
      issuer.token({ sub, tenant, roles, ...(kind ? { kind } : {}) });
    t.alice = await token('C1001', ['requester'], 'customer');
    t.bob = await token('C2002', ['requester'], 'customer');
    t.amy = await token('amy@shop', ['refund_approver', 'approver'], 'approver');
    t.sam = await token('sam@shop', ['support_approver'], 'approver');
    t.ops = await token('ops@shop', ['operator'], 'operator');
    // No `kind` claim, and roles that would make an operator: still a customer.
    t.kindless = await token('kim@shop', ['requester', 'operator']);
    const started = await api(t.alice, 'POST', '/v1/runs', refund);
    expect(started.status).toBe(201);
    runId = started.body.runId!;
    const waiting = await waitForRun(api, t.ops, runId, (r) =>
      ['confirmation', 'human'].includes(r.pendingAction?.kind ?? ''),
    );
    actionId = waiting.pendingAction!.actionId;
  });
  afterAll(async () => {
    await service?.app.close();
    await h?.close();
  });

  /** The run's own record of what reached it: updates in history, refused signals, decisions. */
  const reached = async () => {
    const ops = await api(t.ops, 'GET', `/v1/runs/${runId}`);
    return {
      updates: await updatesInHistory(h, runId),
      rejections: ops.body.view!.signalRejections.length,
      decisions: ops.body.decisions!.length,
    };
  };

  /** Every route that names the run, as `token`: each must answer like a run that does not exist. */
  const outOfScope = async (token: string) => {
    const missing = await api(token, 'GET', `/v1/runs/run-${tenant}-does-not-exist`);
    expect(missing).toMatchObject({ status: 404, body: { error: { code: 'run.not_found' } } });
    const answers = [
      await api(token, 'GET', `/v1/runs/${runId}`),
      await api(token, 'GET', `/v1/runs/${runId}/events`),
      await api(token, 'GET', `/v1/runs/${runId}/events?view=internal`),
      await api(token, 'POST', `/v1/runs/${runId}/decisions`, { decision: 'approve', actionId }),
      await api(token, 'POST', `/v1/runs/${runId}/decisions`, { decision: 'confirm', actionId }),
      await api(token, 'POST', `/v1/runs/${runId}/decisions`, { decision: 'reject', actionId, reason: 'x' }),
      await api(token, 'POST', `/v1/runs/${runId}/decisions`, { decision: 'input', value: 'x' }),
      await api(token, 'POST', `/v1/runs/${runId}/cancel`, { reason: 'mine now' }),
    ];
    for (const a of answers) {
      expect(a.status).toBe(404);
      expect(a.body).toEqual({
        error: { code: 'run.not_found', message: `no run ${runId} in your tenant` },
      });
    }
    const sse = await readSse(
      `${service.url}/v1/runs/${runId}/events`,
      { authorization: `Bearer ${token}` },
      () => true,
      5_000,
    );
    expect(sse.status).toBe(404);
    expect(sse.events).toEqual([]);
    for (const q of ['', '?awaitingDecision=true', '?limit=200'])
      expect((await api(token, 'GET', `/v1/runs${q}`)).body.runs!.map((r) => r.runId)).not.toContain(runId);
  };

  it("a customer cannot list, read, stream, decide or cancel another customer's run; nothing reaches it", async () => {
    const before = await reached();
    await outOfScope(t.bob);
    expect(await reached()).toEqual(before);
    // The requester sees it: read, stream, list (once visibility has it).
    expect((await api(t.alice, 'GET', `/v1/runs/${runId}`)).body).toMatchObject({
      user: 'C1001',
      mayDecide: false,
    });
    const own = await readSse(
      `${service.url}/v1/runs/${runId}/events`,
      { authorization: `Bearer ${t.alice}` },
      () => true,
    );
    expect(own.events.length).toBe(1);
    await expect
      .poll(async () => (await api(t.alice, 'GET', '/v1/runs')).body.runs!.map((r) => r.runId), {
        timeout: 20_000,
      })
      .toContain(runId);
    // A customer never gets the internal view or internal events, whatever roles it claims.
    expect((await api(t.alice, 'GET', `/v1/runs/${runId}`)).body).not.toHaveProperty('view');
  });

  it('a token without kind is a customer: no tenant-wide reads, no internal events, even with the operator role', async () => {
    const before = await reached();
    await outOfScope(t.kindless);
    expect(await reached()).toEqual(before);
    const mine = await api(t.kindless, 'POST', '/v1/runs', {
      profile: 'support.answer',
      task: { message: 'hello' },
      modelRoute: 'scripted/refund',
    });
    expect(mine.status).toBe(201);
    const read = await api(t.kindless, 'GET', `/v1/runs/${mine.body.runId!}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('view');
    const internal = await api(t.kindless, 'GET', `/v1/runs/${mine.body.runId!}/events?view=internal`);
    expect(internal).toMatchObject({ status: 403, body: { error: { code: 'auth.role_missing' } } });
  });

  it('an approver sees what it may decide; one whose roles the rule does not ask for sees nothing', async () => {
    const before = await reached();
    await outOfScope(t.sam);
    expect(await reached()).toEqual(before);
    const amy = await api(t.amy, 'GET', `/v1/runs/${runId}`);
    expect(amy.status).toBe(200);
    expect(amy.body).toMatchObject({ mayDecide: true, pendingAction: { actionId } });
    await expect
      .poll(
        async () =>
          (await api(t.amy, 'GET', '/v1/runs?awaitingDecision=true')).body.runs!.map((r) => r.runId),
        { timeout: 20_000 },
      )
      .toContain(runId);
    // The operator sees the whole tenant, the internal view included.
    expect((await api(t.ops, 'GET', `/v1/runs/${runId}`)).body.view).toMatchObject({
      userId: 'C1001',
      tenantId: tenant,
    });
    const approved = await api(t.amy, 'POST', `/v1/runs/${runId}/decisions`, {
      decision: 'approve',
      actionId,
      reason: 'checked',
    });
    expect(approved).toMatchObject({ status: 200, body: { accepted: true, principal: 'amy@shop' } });
    const done = await waitForRun(api, t.alice, runId, (r) => r.status === 'succeeded');
    expect(done.decisions!.map((d) => d.principal)).toContain('amy@shop');
    // Once decided, the run stays in the scope of the approver who decided it, and only theirs.
    expect((await api(t.amy, 'GET', `/v1/runs/${runId}`)).status).toBe(200);
    expect((await api(t.sam, 'GET', `/v1/runs/${runId}`)).status).toBe(404);
    expect((await api(t.bob, 'GET', `/v1/runs/${runId}`)).status).toBe(404);
  });
});
