import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { createTokenIssuer, readSse, startTestService, type TokenIssuer } from '../support/run-service.js';
import { startIdentityOf } from '../support/start-identity.js';

/**
 * The run service (docs/api.md) on the real dev server, through HTTP: identity, tenancy, starts with
 * idempotency, listing, the run view, public events as SSE resumed with Last-Event-ID, decisions signed
 * on the caller's behalf and checked by the run, cancellation, admission limits and metrics.
 */
/** What the API answers, loosely: every field a test reads. */
interface ApiBody {
  readonly runId?: string;
  readonly status?: string | null;
  readonly pendingAction?: { readonly kind: string; readonly actionId: string } | null;
  readonly decisions?: readonly { readonly principal: string }[];
  readonly runs?: readonly { readonly runId: string }[];
  readonly error?: { readonly code: string };
  readonly accepted?: boolean;
  readonly principal?: string;
  readonly [key: string]: unknown;
}

describe('run service', { timeout: 180_000 }, () => {
  let h: HarnessFixture;
  let issuer: TokenIssuer;
  let service: { app: FastifyInstance; url: string };
  const tokens: Record<string, string> = {};
  const refundTask = { message: 'refund ORD-1001 please', customerId: 'C1001' };

  const api = async (
    who: string,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        ...(tokens[who] ? { authorization: `Bearer ${tokens[who]}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: (text.startsWith('{') ? JSON.parse(text) : { text }) as ApiBody,
    };
  };
  const waitFor = async (who: string, runId: string, ok: (r: ApiBody) => boolean, ms = 60_000) => {
    const until = Date.now() + ms;
    for (;;) {
      const r = await api(who, 'GET', `/v1/runs/${runId}`);
      if (r.status === 200 && ok(r.body)) return r.body;
      if (Date.now() > until)
        throw new Error(`run ${runId} never got there: ${JSON.stringify(r.body).slice(0, 500)}`);
      await new Promise((res) => setTimeout(res, 200));
    }
  };

  beforeAll(async () => {
    h = await createHarnessFixture('run-service');
    issuer = await createTokenIssuer();
    service = await startTestService(h, issuer, { stream: { pollMs: 50, heartbeatMs: 1_000 } });
    tokens.customer = await issuer.token({
      sub: 'C1001',
      tenant: 'acme',
      roles: ['requester'],
      kind: 'customer',
    });
    tokens.approver = await issuer.token({
      sub: 'dana@acme',
      tenant: 'acme',
      roles: ['refund_approver', 'approver'],
      kind: 'approver',
    });
    // Staff of the tenant who may see every run but approve nothing.
    tokens.viewer = await issuer.token({
      sub: 'vic@acme',
      tenant: 'acme',
      roles: ['viewer'],
      kind: 'operator',
    });
    tokens.operator = await issuer.token({
      sub: 'ops@acme',
      tenant: 'acme',
      roles: ['operator'],
      kind: 'operator',
    });
    tokens.other = await issuer.token({
      sub: 'olga@globex',
      tenant: 'globex',
      roles: ['requester', 'refund_approver', 'operator'],
      kind: 'operator',
    });
  });
  afterAll(async () => {
    await service?.app.close();
    await h?.close();
  });

  it('refuses a missing, forged or expired token (401) and a caller without the role (403)', async () => {
    expect((await api('nobody', 'GET', '/v1/runs')).body).toMatchObject({
      error: { code: 'auth.missing_token' },
    });
    const forged = await (
      await createTokenIssuer()
    ).token({ sub: 'dana@acme', tenant: 'acme', roles: ['operator'] });
    const bad = await api('nobody', 'GET', '/v1/runs', undefined, { authorization: `Bearer ${forged}` });
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ error: { code: 'auth.invalid_token' } });
    const expired = await issuer.token(
      { sub: 'dana@acme', tenant: 'acme', roles: ['operator'] },
      { expiresIn: Math.floor(Date.now() / 1000) - 60 },
    );
    const old = await api('nobody', 'GET', '/v1/runs', undefined, { authorization: `Bearer ${expired}` });
    expect(old.status).toBe(401);
    expect(old.body).toMatchObject({ error: { code: 'auth.token_expired' } });
    const viewerStart = await api('viewer', 'POST', '/v1/runs', {
      profile: 'refund.graph',
      task: refundTask,
      modelRoute: 'scripted/refund',
    });
    expect(viewerStart.status).toBe(403);
    expect(viewerStart.body).toMatchObject({ error: { code: 'auth.role_missing' } });
    const bogus = await api('customer', 'POST', '/v1/runs', {
      profile: 'refund.graph',
      task: refundTask,
      extra: 1,
    });
    expect(bogus.status).toBe(400);
    expect(bogus.body).toMatchObject({ error: { code: 'request.invalid' } });
    const notAllowed = await api('customer', 'POST', '/v1/runs', {
      profile: 'refund.graph',
      policy: 'allow_all@v1',
      task: refundTask,
    });
    expect(notAllowed.status).toBe(400);
    expect(notAllowed.body).toMatchObject({ error: { code: 'run.policy_not_allowed' } });
  });

  it('starts a refund run, streams its public events, takes an approval, and ends it; another tenant sees nothing', async () => {
    const body = { profile: 'refund.graph', task: refundTask, modelRoute: 'scripted/refund' };
    const key = `order-1001-${Date.now()}`;
    const started = await api('customer', 'POST', '/v1/runs', body, { 'idempotency-key': key });
    expect(started.status).toBe(201);
    const runId = started.body.runId!;
    // Idempotent: the same key and request give the same run; the same key with another request is refused.
    const again = await api('customer', 'POST', '/v1/runs', body, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.body.runId).toBe(runId);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const reused = await api(
      'customer',
      'POST',
      '/v1/runs',
      { ...body, task: { ...refundTask, message: 'other' } },
      { 'idempotency-key': key },
    );
    expect(reused.status).toBe(409);
    expect(reused.body).toMatchObject({ error: { code: 'idempotency.key_reused' } });
    // The service signed the start for the caller with its delegate key: who the run is for is verified.
    expect(await startIdentityOf(h.t.client.workflow.getHandle(runId))).toMatchObject({
      ok: true,
      identity: { verified: true, userId: 'C1001', kind: 'customer', tenantId: 'acme', via: 'run-service' },
    });

    const waiting = await waitFor(
      'approver',
      runId,
      (r) => r.pendingAction?.kind === 'confirmation' || r.pendingAction?.kind === 'human',
    );
    expect(waiting).toMatchObject({
      tenant: 'acme',
      user: 'C1001',
      profile: 'refund.graph@v1',
      policy: 'refund.rules@v1',
    });
    // The run's own view names who it was started for (operators get the whole view).
    const operatorView = await api('operator', 'GET', `/v1/runs/${runId}`);
    expect(operatorView.body.view).toMatchObject({ tenantId: 'acme', userId: 'C1001' });

    // Another tenant: 404 for the run, its events and its decisions; its list does not show it.
    expect((await api('other', 'GET', `/v1/runs/${runId}`)).status).toBe(404);
    expect((await api('other', 'GET', `/v1/runs/${runId}/events`)).status).toBe(404);
    const foreign = await api('other', 'POST', `/v1/runs/${runId}/decisions`, {
      decision: 'approve',
      actionId: waiting.pendingAction!.actionId,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ error: { code: 'run.not_found' } });
    const otherList = await api('other', 'GET', '/v1/runs');
    expect(otherList.body.runs!.map((r) => r.runId)).not.toContain(runId);
    // The visibility index catches up shortly after the start.
    const until = Date.now() + 20_000;
    let listed: readonly { runId: string }[] = [];
    while (Date.now() < until && !listed.some((r) => r.runId === runId)) {
      listed = (await api('approver', 'GET', '/v1/runs?awaitingDecision=true')).body.runs as {
        runId: string;
      }[];
      if (!listed.some((r) => r.runId === runId)) await new Promise((res) => setTimeout(res, 300));
    }
    expect(listed.map((r) => r.runId)).toContain(runId);
    // Cursor paging: pages of one, each run once, all of this tenant.
    const paged: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 3; i++) {
      const page = await api('approver', 'GET', `/v1/runs?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      paged.push(...page.body.runs!.map((r) => r.runId));
      cursor = page.body.nextCursor as string | undefined;
      if (!cursor) break;
    }
    expect(new Set(paged).size).toBe(paged.length);
    expect(paged.every((id) => id.startsWith('run-acme-'))).toBe(true);
    // A cursor this service never issued is the caller's mistake, not the service's.
    const bad = await api('approver', 'GET', `/v1/runs?limit=1&cursor=AAAA`);
    expect(bad.status).toBe(400);
    expect(bad.body.error?.code).toBe('request.invalid_cursor');

    // The public stream up to the wait; the client leaves after event k.
    const first = await readSse(
      `${service.url}/v1/runs/${runId}/events`,
      { authorization: `Bearer ${tokens.approver}` },
      (e) =>
        e.event === 'human.requested' ||
        e.event === 'human.approval_requested' ||
        (e.event === 'state.transitioned' && e.data.includes('awaiting_')),
    );
    expect(first.status).toBe(200);
    const k = Number(first.events.at(-1)!.id);
    const firstSeqs = first.events.map((e) => Number(e.id));
    // Sequences are gap-free from the run's first event (restricted ones arrive as `omitted`).
    expect(firstSeqs).toEqual(Array.from({ length: firstSeqs.length }, (_, i) => firstSeqs[0]! + i));
    expect(firstSeqs[0]).toBeLessThanOrEqual(1);

    // Who may not decide is told why by the service, before anything reaches the run.
    const viewer = await api('viewer', 'POST', `/v1/runs/${runId}/decisions`, {
      decision: 'approve',
      actionId: waiting.pendingAction!.actionId,
    });
    expect(viewer.status).toBe(403);
    expect(viewer.body).toMatchObject({ error: { code: 'decision.role_missing' } });
    const requester = await api('customer', 'POST', `/v1/runs/${runId}/decisions`, {
      decision: 'approve',
      actionId: waiting.pendingAction!.actionId,
    });
    expect(requester.status).toBe(403);
    expect(requester.body).toMatchObject({ error: { code: 'decision.customer_cannot_approve' } });
    const stale = await api('approver', 'POST', `/v1/runs/${runId}/decisions`, {
      decision: 'approve',
      actionId: 'a999.nothing',
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ error: { code: 'signal.action_mismatch' } });

    // The approver asks the requester first (request_more_info): the answer brings the action back.
    const asked = await api('approver', 'POST', `/v1/runs/${runId}/decisions`, {
      decision: 'request_more_info',
      actionId: waiting.pendingAction!.actionId,
      question: 'Did the parcel ever leave the warehouse?',
    });
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ accepted: true, principal: 'dana@acme' });
    await waitFor('customer', runId, (r) => r.status === 'awaiting_input');
    const answered = await api('customer', 'POST', `/v1/runs/${runId}/decisions`, {
      decision: 'input',
      value: 'No, it never shipped.',
    });
    expect(answered.status).toBe(200);
    await waitFor(
      'customer',
      runId,
      (r) => r.status === waiting.status && r.pendingAction?.actionId === waiting.pendingAction!.actionId,
    );

    const approved = await api('approver', 'POST', `/v1/runs/${runId}/decisions`, {
      decision: 'approve',
      actionId: waiting.pendingAction!.actionId,
      reason: 'checked',
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ accepted: true, principal: 'dana@acme' });

    // Reconnect with Last-Event-ID: k+1 onward, no gap, no duplicate, until the terminal event.
    const rest = await readSse(
      `${service.url}/v1/runs/${runId}/events`,
      { authorization: `Bearer ${tokens.approver}`, 'last-event-id': String(k) },
      (e) => e.event === 'run.completed',
    );
    const seqs = rest.events.map((e) => Number(e.id));
    expect(seqs[0]).toBe(k + 1);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => k + 1 + i));
    expect(rest.events.at(-1)!.event).toBe('run.completed');
    // Public events: no internal envelope fields.
    expect(JSON.parse(rest.events.at(-1)!.data)).not.toHaveProperty('versions');

    const done = await waitFor('customer', runId, (r) => r.status === 'succeeded');
    expect(done.decisions!.some((d) => d.principal === 'dana@acme')).toBe(true);
    expect(
      (await h.composition.store.listRuns({ tenantId: 'acme', limit: 5000 })).map((r) => r.runId),
    ).toContain(runId);
    expect(
      (await h.composition.store.listRuns({ tenantId: 'globex', limit: 5000 })).map((r) => r.runId),
    ).not.toContain(runId);
  });

  it('cancels a run for an operator of its tenant', async () => {
    const started = await api('customer', 'POST', '/v1/runs', {
      profile: 'refund.graph',
      task: refundTask,
      modelRoute: 'scripted/refund',
    });
    const runId = started.body.runId!;
    await waitFor('operator', runId, (r) => r.pendingAction !== null);
    expect((await api('other', 'POST', `/v1/runs/${runId}/cancel`, { reason: 'no' })).status).toBe(404);
    const cancelled = await api('operator', 'POST', `/v1/runs/${runId}/cancel`, {
      reason: 'customer withdrew',
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ accepted: true, principal: 'ops@acme' });
    await waitFor('operator', runId, (r) => r.status === 'cancelled');
  });

  it('limits run starts per user (429 with Retry-After) and reports metrics and its OpenAPI document', async () => {
    const tight = await startTestService(h, issuer, {
      limits: { startsPerUser: { perSecond: 0.01, burst: 2 } },
    });
    try {
      const start = () =>
        fetch(`${tight.url}/v1/runs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tokens.customer}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            profile: 'support.answer',
            task: { message: 'hello' },
            modelRoute: 'scripted/refund',
          }),
        });
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push(await start());
      expect(codes.map((r) => r.status)).toEqual([201, 201, 429]);
      expect(Number(codes[2]!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await codes[2]!.json()).toMatchObject({ error: { code: 'rate.starts_user' } });
    } finally {
      await tight.app.close();
    }
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/harness_runs_started_total\{profile="refund.graph@v1"\} \d+/);
    expect(metrics).toMatch(/harness_decisions_total\{decision="approve",outcome="accepted"\} 1/);
    expect(metrics).toMatch(/harness_refusals_total\{code="run.not_found"\} \d+/);
    expect(metrics).toContain('harness_api_request_duration_ms_bucket');
    const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/runs', '/v1/runs/{runId}/events', '/v1/runs/{runId}/decisions']),
    );
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
  });
});
