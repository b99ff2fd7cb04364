import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testAttestation } from '../support/attestation.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { openApiContract, type OpenApiDoc } from '../support/openapi-contract.js';
import {
  createTokenIssuer,
  startTestService,
  type ApiAnswer,
  type TokenIssuer,
} from '../support/run-service.js';

type ApiBody = Record<string, unknown> & {
  error?: { code?: string; message?: string };
  erased?: Record<string, unknown>[];
  checks?: { check: string; ok: boolean; code: string; detail: string }[];
  pendingAction?: { actionId: string };
  status?: string;
};

/**
 * `POST /v1/runs/{id}/erase` through the real service on a real refund run (docs/api.md, "Erasure"):
 * refused before anything is erased for a run still going (409), a caller without `roles.erase` (403),
 * another tenant (404), a bad body (400) and over the caller's rate (429); for a finished run it erases
 * the requester's values, records the verified caller as `by` in a chained record signed with the
 * service's attestation key, and the run's verification passes its `erasures` line, until the record
 * is edited or deleted in the database.
 */
describe('run service: erasure', { timeout: 180_000 }, () => {
  let h: HarnessFixture;
  let issuer: TokenIssuer;
  let service: { app: FastifyInstance; url: string };
  const tokens: Record<string, string> = {};
  let runId = '';
  let doc: OpenApiDoc;
  const { check } = openApiContract(() => doc);

  const api = async (who: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tokens[who]}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const answer = { status: res.status, headers: res.headers, body: (await res.json()) as ApiBody };
    // Every answer of the erase endpoint is one its OpenAPI document lists, with a body that validates.
    if (path.endsWith('/erase')) check(method, '/v1/runs/{runId}/erase', answer as unknown as ApiAnswer);
    return { ...answer, retryAfter: res.headers.get('retry-after') };
  };
  const erasuresLine = async () => {
    const r = await api('operator', 'GET', `/v1/runs/${runId}/verification`);
    expect(r.status).toBe(200);
    return r.body.checks!.find((c) => c.check === 'erasures');
  };
  const waitFor = async (ok: (r: ApiBody) => boolean) => {
    for (let i = 0; i < 600; i++) {
      const r = await api('operator', 'GET', `/v1/runs/${runId}`);
      if (r.status === 200 && ok(r.body)) return r.body;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error(`run ${runId} never got there`);
  };

  beforeAll(async () => {
    const attestation = testAttestation();
    h = await createHarnessFixture('service-erase', {}, { attestation: attestation.signer });
    issuer = await createTokenIssuer();
    service = await startTestService(
      h,
      issuer,
      { limits: { erasuresPerUser: { perSecond: 0.001, burst: 3 } } },
      attestation.registry,
      attestation.signer,
    );
    doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as OpenApiDoc;
    const claims = [
      ['customer', 'C1001', 'acme', ['requester'], 'customer'],
      ['approver', 'dana@acme', 'acme', ['refund_approver', 'approver'], 'approver'],
      ['operator', 'ops@acme', 'acme', ['operator'], 'operator'],
      ['privacy', 'pia@acme', 'acme', ['privacy_officer'], 'operator'],
      ['privacy2', 'pat@acme', 'acme', ['privacy_officer'], 'operator'],
      ['other', 'olga@globex', 'globex', ['privacy_officer', 'operator'], 'operator'],
    ] as const;
    for (const [who, sub, tenant, roles, kind] of claims)
      tokens[who] = await issuer.token({ sub, tenant, roles: [...roles], kind });
    const started = await api('customer', 'POST', '/v1/runs', {
      profile: 'refund.graph',
      task: { message: 'refund ORD-1001 please', customerId: 'C1001' },
      modelRoute: 'scripted/refund',
    });
    expect(started.status).toBe(201);
    runId = started.body.runId as string;
  });
  afterAll(async () => {
    await service?.app.close();
    await h?.close();
  });

  it('refuses a run still going (409), a caller without the role (403), another tenant (404) and a bad body (400)', async () => {
    const waiting = await waitFor((r) => r.pendingAction !== undefined && r.pendingAction !== null);
    const active = await api('privacy', 'POST', `/v1/runs/${runId}/erase`, { reason: 'GDPR Art. 17' });
    expect(active.status).toBe(409);
    expect(active.body.error).toMatchObject({ code: 'run.active' });
    for (const who of ['operator', 'customer']) {
      const r = await api(who, 'POST', `/v1/runs/${runId}/erase`, { reason: 'GDPR Art. 17' });
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ code: 'auth.role_missing' });
    }
    const foreign = await api('other', 'POST', `/v1/runs/${runId}/erase`, { reason: 'GDPR Art. 17' });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'run.not_found' });
    for (const bad of [{}, { reason: 'x', paths: ['userId'] }, { reason: 'x', extra: 1 }]) {
      const r = await api('privacy2', 'POST', `/v1/runs/${runId}/erase`, bad);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'request.invalid' });
    }
    const approved = await api('approver', 'POST', `/v1/runs/${runId}/decisions`, {
      decision: 'approve',
      actionId: waiting.pendingAction!.actionId,
      reason: 'checked',
    });
    expect(approved.status).toBe(200);
    await waitFor((r) => r.status === 'succeeded' && r.executionStatus === 'COMPLETED');
    // Nothing was erased by the refusals.
    expect(await erasuresLine()).toMatchObject({ ok: true, code: 'erasures.ok', detail: 'no erasures' });
  });

  it('erases a finished run with the verified caller as by, chained and signed; then over the rate 429', async () => {
    const r = await api('privacy', 'POST', `/v1/runs/${runId}/erase`, { reason: 'GDPR Art. 17 request 7' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.erased).toHaveLength(1);
    const record = r.body.erased![0]!;
    expect(record).toMatchObject({
      runId,
      seq: 1,
      actor: 'pia@acme',
      reason: 'GDPR Art. 17 request 7',
      prev: null,
    });
    expect(record.paths).toContain('/userId');
    expect(record.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(typeof record.head).toBe('string');
    const events = await h.composition.store.listEvents(runId);
    expect(events.find((e) => e.type === 'run.started')?.data).toMatchObject({
      userId: '[withheld by policy]',
    });
    const line = await erasuresLine();
    expect(line).toMatchObject({ ok: true, code: 'erasures.ok' });
    expect(line!.detail).toContain('every withheld value accounted for');

    const again = await api('privacy', 'POST', `/v1/runs/${runId}/erase`, { reason: 'again' });
    expect(again.status).toBe(200);
    expect(again.body.erased).toEqual([]);
    const limited = await api('privacy', 'POST', `/v1/runs/${runId}/erase`, { reason: 'again' });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'rate.erasures_user' });
    expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it("fails the run's erasures line once the record is edited, then deleted, in the database", async () => {
    const db = new Database(join(h.dir, 'evidence.db'));
    try {
      db.prepare("UPDATE erasures SET body = replace(body, 'pia@acme', 'eve@acme') WHERE run_id = ?").run(
        runId,
      );
      expect(await erasuresLine()).toMatchObject({ ok: false, code: 'erasures.record_altered' });
      db.prepare('DELETE FROM erasures WHERE run_id = ?').run(runId);
      expect(await erasuresLine()).toMatchObject({ ok: false, code: 'erasures.unrecorded' });
    } finally {
      db.close();
    }
  });
});
