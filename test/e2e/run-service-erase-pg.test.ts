import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEvidenceStore, parseStoreUrl, type EvidenceStore } from '../../src/activities/store/index.js';
import { testAttestation } from '../support/attestation.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { openApiContract, type OpenApiDoc } from '../support/openapi-contract.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import {
  createTokenIssuer,
  serviceApi,
  startTestService,
  waitForRun,
  type ApiAnswer,
  type TokenIssuer,
} from '../support/run-service.js';

/**
 * `POST /v1/runs/{id}/erase` twice at once on a PostgreSQL evidence store (docs/api.md, "Erasure"),
 * through two service replicas, each with its own store handle: held at the run's record until both
 * have read the run's erasure chain, one answers 200 with record #1 and the other 409
 * `erasure.conflict` (not a 500), nothing of it erased; sent again, it answers as a second erasure
 * does (nothing left: `erased: []`), and the run's verification passes its `erasures` line.
 */
describe('run service on PostgreSQL: concurrent erasures of one run', { timeout: 240_000 }, () => {
  let server: TestPostgres;
  let storeUrl: string;
  let h: HarnessFixture;
  let issuer: TokenIssuer;
  let secondStore: EvidenceStore;
  const services: { app: FastifyInstance; url: string }[] = [];
  const tokens: Record<string, string> = {};
  let doc: OpenApiDoc;
  const { check } = openApiContract(() => doc);
  const apis = [serviceApi(() => services[0]!.url), serviceApi(() => services[1]!.url)];
  /** Ask replica `at` as `who`; every erase answer is one the OpenAPI document lists. */
  const api = async (at: 0 | 1, who: string, method: string, path: string, body?: unknown) => {
    const answer = await apis[at]!(tokens[who], method, path, body);
    if (path.endsWith('/erase')) check(method, '/v1/runs/{runId}/erase', answer);
    return answer;
  };
  /** A connection of the test's own to the store's schema. */
  const connect = async () => {
    const location = parseStoreUrl(storeUrl);
    if (location.backend !== 'postgres') throw new Error('not a postgres url');
    const client = new pg.Client({ connectionString: location.connectionString });
    await client.connect();
    if (location.schema !== undefined) await client.query(`SET search_path TO "${location.schema}"`);
    return client;
  };
  const lockWaiters = async (client: pg.Client) =>
    Number(
      (
        await client.query<{ n: string }>(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
        )
      ).rows[0]?.n ?? 0,
    );
  const until = async (what: string, ok: () => Promise<boolean>) => {
    for (let i = 0; i < 1000; i++) {
      if (await ok()) return;
      await new Promise((res) => setTimeout(res, 20));
    }
    throw new Error(`timed out waiting until ${what}`);
  };

  beforeAll(async () => {
    server = await startTestPostgres();
    storeUrl = server.freshUrl();
    const attestation = testAttestation();
    h = await createHarnessFixture('service-erase-pg', { storeUrl }, { attestation: attestation.signer });
    secondStore = await openEvidenceStore(storeUrl);
    issuer = await createTokenIssuer();
    services.push(await startTestService(h, issuer, {}, attestation.registry, attestation.signer));
    services.push(
      await startTestService(
        { client: h.t.client, store: secondStore, taskQueue: h.taskQueue },
        issuer,
        {},
        attestation.registry,
        attestation.signer,
      ),
    );
    doc = (await (await fetch(`${services[0]!.url}/openapi.json`)).json()) as OpenApiDoc;
    const claims = [
      ['customer', 'C1001', 'acme', ['requester'], 'customer'],
      ['approver', 'dana@acme', 'acme', ['refund_approver', 'approver'], 'approver'],
      ['operator', 'ops@acme', 'acme', ['operator'], 'operator'],
      ['privacy', 'pia@acme', 'acme', ['privacy_officer'], 'operator'],
      ['privacy2', 'pat@acme', 'acme', ['privacy_officer'], 'operator'],
    ] as const;
    for (const [who, sub, tenant, roles, kind] of claims)
      tokens[who] = await issuer.token({ sub, tenant, roles: [...roles], kind });
  }, 180_000);
  afterAll(async () => {
    for (const s of services) await s.app.close();
    await secondStore?.close();
    await h?.close();
    await server?.stop();
  }, 60_000);

  it('answers one 200 and one 409 erasure.conflict, never a 500; sent again, the second erases nothing', async () => {
    const started = await api(0, 'customer', 'POST', '/v1/runs', {
      profile: 'refund.graph',
      task: { message: 'refund ORD-1001 please', customerId: 'C1001' },
      modelRoute: 'scripted/refund',
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const runId = started.body.runId!;
    const ops = tokens.operator!;
    const waiting = await waitForRun(
      apis[0]!,
      ops,
      runId,
      (r) => r.pendingAction !== undefined && r.pendingAction !== null,
    );
    const approved = await api(0, 'approver', 'POST', `/v1/runs/${runId}/decisions`, {
      decision: 'approve',
      actionId: waiting.pendingAction!.actionId,
      reason: 'checked',
    });
    expect(approved.status).toBe(200);
    await waitForRun(
      apis[0]!,
      ops,
      runId,
      (r) => r.status === 'succeeded' && r.executionStatus === 'COMPLETED',
    );

    // Hold the run's record: the first erasure waits there with its record inserted, the second on
    // the values the first deleted; then let both go.
    const holder = await connect();
    const watcher = await connect();
    let answers: ApiAnswer[];
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT run_id FROM runs WHERE run_id = $1 FOR UPDATE', [runId]);
      const one = api(0, 'privacy', 'POST', `/v1/runs/${runId}/erase`, { reason: 'GDPR Art. 17 request 7' });
      await until('the first erasure waits', async () => (await lockWaiters(watcher)) >= 1);
      const two = api(1, 'privacy2', 'POST', `/v1/runs/${runId}/erase`, { reason: 'GDPR Art. 17 request 8' });
      await until('both erasures wait', async () => (await lockWaiters(watcher)) >= 2);
      await holder.query('ROLLBACK');
      answers = await Promise.all([one, two]);
    } finally {
      await holder.end();
      await watcher.end();
    }
    const [first, second] = answers;
    expect(first!.status, JSON.stringify(first!.body)).toBe(200);
    expect(first!.body.erased).toMatchObject([{ runId, seq: 1, actor: 'pia@acme', prev: null }]);
    expect(second!.status, JSON.stringify(second!.body)).toBe(409);
    expect(second!.body.error).toMatchObject({ code: 'erasure.conflict' });

    // Nothing of the refused erasure was stored: one record, and the erasures line passes.
    const verification = await api(0, 'operator', 'GET', `/v1/runs/${runId}/verification`);
    expect(verification.status).toBe(200);
    const checks = verification.body.checks as { check: string; ok: boolean; code: string }[];
    expect(checks.find((c) => c.check === 'erasures')).toMatchObject({ ok: true, code: 'erasures.ok' });

    // Sent again, it runs after the first: nothing is left to erase.
    const again = await api(1, 'privacy2', 'POST', `/v1/runs/${runId}/erase`, {
      reason: 'GDPR Art. 17 request 8',
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.erased).toEqual([]);
  });
});
