import { describe, expect, it } from 'vitest';
import { readSse, waitForRun, type ApiAnswer } from '../support/run-service.js';
import {
  service,
  tight,
  tokens,
  refund,
  support,
  api,
  tightApi,
  sse,
  NOT_DRIVEN,
  check,
  missing,
  useRunServiceContract,
} from '../support/run-service-contract-rig.js';

/**
 * The run service's contract (issue 37): the real service, on the real dev server with a real worker,
 * is driven through every route and every status its OpenAPI document lists, and every answer is
 * validated against the document's schema for that route and status; an answer with a status the
 * document does not list fails. Also the drifts an outside team found: a start answers `StartedRun`;
 * every error, the service's or the run's, is `{ error: { code, message } }`; lists are newest first;
 * an idempotent retry spends no rate token; 413 is `request.too_large`; more than 10 event streams
 * raise no EventTarget leak warning.
 */
describe('run service contract', { timeout: 240_000 }, () => {
  useRunServiceContract();

  it('drives every route through its statuses; every answer is what the document says', async () => {
    // Starts: 201, replay 200, key reuse 409, bad body 400, no token 401, no role 403, too large 413, not JSON 415.
    const key = `contract-${Date.now()}`;
    const started = check(
      'POST',
      '/v1/runs',
      await api(tokens.customer, 'POST', '/v1/runs', refund, { 'idempotency-key': key }),
    );
    expect(started.status).toBe(201);
    const runId = started.body.runId!;
    expect(started.body).toEqual({
      runId,
      executionStatus: 'RUNNING',
      links: { self: `/v1/runs/${runId}`, events: `/v1/runs/${runId}/events` },
    });
    const replay = check(
      'POST',
      '/v1/runs',
      await api(tokens.customer, 'POST', '/v1/runs', refund, { 'idempotency-key': key }),
    );
    expect([replay.status, replay.body.runId, replay.headers.get('idempotent-replayed')]).toEqual([
      200,
      runId,
      'true',
    ]);
    const reused = await api(tokens.customer, 'POST', '/v1/runs', support, { 'idempotency-key': key });
    expect(check('POST', '/v1/runs', reused).body.error?.code).toBe('idempotency.key_reused');
    check('POST', '/v1/runs', await api(tokens.customer, 'POST', '/v1/runs', { ...support, extra: 1 }));
    check('POST', '/v1/runs', await api(undefined, 'POST', '/v1/runs', support));
    check('POST', '/v1/runs', await api(tokens.viewer, 'POST', '/v1/runs', support));
    const big = await api(tokens.customer, 'POST', '/v1/runs', {
      ...support,
      task: { message: 'x'.repeat(300_000) },
    });
    expect([check('POST', '/v1/runs', big).status, big.body.error?.code]).toEqual([413, 'request.too_large']);
    const notJson = await fetch(`${service.url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.customer}`, 'content-type': 'application/xml' },
      body: 'hello',
    });
    check('POST', '/v1/runs', {
      status: notJson.status,
      headers: notJson.headers,
      body: (await notJson.json()) as ApiAnswer['body'],
    });

    // A run started later that ends at once: listed before the older run that still waits.
    const later = check('POST', '/v1/runs', await api(tokens.customer, 'POST', '/v1/runs', support));
    await waitForRun(api, tokens.customer, later.body.runId!, (r) => r.executionStatus === 'COMPLETED');
    const waiting = await waitForRun(api, tokens.operator, runId, (r) => r.pendingAction != null);
    let listed: string[] = [];
    for (let i = 0; i < 50 && !(listed.includes(runId) && listed.includes(later.body.runId!)); i++) {
      listed = check(
        'GET',
        '/v1/runs',
        await api(tokens.customer, 'GET', '/v1/runs?limit=200'),
      ).body.runs!.map((r) => r.runId);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(listed.indexOf(later.body.runId!)).toBeLessThan(listed.indexOf(runId));
    const startedAt = (
      check('GET', '/v1/runs', await api(tokens.customer, 'GET', '/v1/runs?limit=200')).body
        .runs as unknown as {
        startedAt: string;
      }[]
    ).map((r) => r.startedAt);
    expect(startedAt).toEqual([...startedAt].sort().reverse());
    // Pages of one give the same order, each run once.
    const paged: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 4; i++) {
      const page = check(
        'GET',
        '/v1/runs',
        await api(tokens.customer, 'GET', `/v1/runs?limit=1${cursor ? `&cursor=${cursor}` : ''}`),
      );
      paged.push(...page.body.runs!.map((r) => r.runId));
      cursor = page.body.nextCursor as string | undefined;
      if (!cursor) break;
    }
    expect(paged).toEqual(listed.slice(0, paged.length));
    check('GET', '/v1/runs', await api(tokens.customer, 'GET', '/v1/runs?cursor=AAAA'));
    check('GET', '/v1/runs', await api(undefined, 'GET', '/v1/runs'));

    // The run: 200 (with and without the operator's view), 404 for another tenant, 401.
    expect(
      check('GET', '/v1/runs/{runId}', await api(tokens.operator, 'GET', `/v1/runs/${runId}`)).body.view,
    ).toBeDefined();
    check('GET', '/v1/runs/{runId}', await api(tokens.approver, 'GET', `/v1/runs/${runId}`));
    check('GET', '/v1/runs/{runId}', await api(tokens.other, 'GET', `/v1/runs/${runId}`));
    check('GET', '/v1/runs/{runId}', await api(undefined, 'GET', `/v1/runs/${runId}`));

    // Events: 200 (12 streams at once, no leak warning), 400, 401, 403, 404, 429.
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const streams = await Promise.all(
        Array.from({ length: 12 }, () =>
          readSse(
            `${service.url}/v1/runs/${runId}/events`,
            { authorization: `Bearer ${tokens.operator}` },
            () => true,
          ),
        ),
      );
      expect(streams.map((s) => s.status)).toEqual(Array.from({ length: 12 }, () => 200));
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
    check(
      'GET',
      '/v1/runs/{runId}/events',
      await sse(`/v1/runs/${runId}/events`, tokens.operator),
      'text/event-stream',
    );
    check(
      'GET',
      '/v1/runs/{runId}/events',
      await sse(`/v1/runs/${runId}/events`, tokens.operator, { 'last-event-id': 'x' }),
    );
    check(
      'GET',
      '/v1/runs/{runId}/events',
      await sse(`/v1/runs/${runId}/events?view=internal`, tokens.customer),
    );
    check('GET', '/v1/runs/{runId}/events', await sse(`/v1/runs/${runId}/events`, tokens.other));
    const noToken = await fetch(`${service.url}/v1/runs/${runId}/events`);
    check('GET', '/v1/runs/{runId}/events', {
      status: noToken.status,
      headers: noToken.headers,
      body: (await noToken.json()) as ApiAnswer['body'],
    });
    // Invocations: 200 (an operator), 403 (not an operator), 404 (another tenant), 401 (no token).
    const I = '/v1/runs/{runId}/invocations';
    const invocations = check('GET', I, await api(tokens.operator, 'GET', `/v1/runs/${runId}/invocations`));
    expect(invocations.status).toBe(200);
    check('GET', I, await api(tokens.customer, 'GET', `/v1/runs/${runId}/invocations`));
    check('GET', I, await api(tokens.other, 'GET', `/v1/runs/${runId}/invocations`));
    check('GET', I, await api(undefined, 'GET', `/v1/runs/${runId}/invocations`));
    // Verification and bundle: 200 (an operator), 403 (not an operator), 404 (another tenant), 401.
    for (const P of ['verification', 'bundle']) {
      const path = `/v1/runs/{runId}/${P}`;
      expect(check('GET', path, await api(tokens.operator, 'GET', `/v1/runs/${runId}/${P}`)).status).toBe(
        200,
      );
      check('GET', path, await api(tokens.customer, 'GET', `/v1/runs/${runId}/${P}`));
      check('GET', path, await api(tokens.other, 'GET', `/v1/runs/${runId}/${P}`));
      check('GET', path, await api(undefined, 'GET', `/v1/runs/${runId}/${P}`));
    }
    // Payloads and context packages: 200 (an operator), 400, 403 (not an operator), 404 (another
    // tenant; no such invocation or package), 401.
    for (const [P, path, found, absent] of [
      [
        '/v1/runs/{runId}/invocations/{seq}/payload',
        'invocations/1/payload',
        'invocations/1/payload',
        'invocations/999/payload',
      ],
      ['/v1/runs/{runId}/context/{call}', 'context/x', 'context/1', 'context/999'],
    ] as const) {
      const at = (rest: string) => `/v1/runs/${runId}/${rest}`;
      expect(check('GET', P, await api(tokens.operator, 'GET', at(found))).status).toBe(200);
      expect(check('GET', P, await api(tokens.operator, 'GET', at(path.replace('1', '-1')))).status).toBe(
        400,
      );
      expect(check('GET', P, await api(tokens.operator, 'GET', at(absent))).status).toBe(404);
      check('GET', P, await api(tokens.customer, 'GET', at(found)));
      check('GET', P, await api(tokens.other, 'GET', at(found)));
      check('GET', P, await api(undefined, 'GET', at(found)));
    }
    // Payload and context reads share the caller's read rate: past it, refused before anything is read;
    // another caller keeps its own budget.
    {
      const P = '/v1/runs/{runId}/invocations/{seq}/payload';
      const C = '/v1/runs/{runId}/context/{call}';
      const at = (rest: string) => `/v1/runs/${runId}/${rest}`;
      expect(
        check('GET', P, await tightApi(tokens.operator, 'GET', at('invocations/1/payload'))).status,
      ).toBe(200);
      const refused = check('GET', C, await tightApi(tokens.operator, 'GET', at('context/1')));
      expect([refused.status, refused.body.error?.code]).toEqual([429, 'rate.inspections_user']);
      expect(
        check('GET', P, await tightApi(tokens.operator, 'GET', at('invocations/1/payload'))).status,
      ).toBe(429);
      expect((await tightApi(tokens.viewer, 'GET', at('context/1'))).status).toBe(403);
    }
    const held = new AbortController();
    const first = readSse(
      `${tight.url}/v1/runs/${runId}/events`,
      { authorization: `Bearer ${tokens.operator}` },
      () => false,
      20_000,
    );
    await new Promise((r) => setTimeout(r, 300));
    const over = await fetch(`${tight.url}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${tokens.operator}` },
      signal: held.signal,
    });
    check('GET', '/v1/runs/{runId}/events', {
      status: over.status,
      headers: over.headers,
      body: (await over.json()) as ApiAnswer['body'],
    });
    expect(over.status).toBe(429);

    // Decisions: 400, 401, 403 (the gate), 404, 409 (the service's own: one error shape), 413, 415, 200.
    const actionId = waiting.pendingAction!.actionId;
    const decide = (token: string | undefined, body: unknown) =>
      api(token, 'POST', `/v1/runs/${runId}/decisions`, body);
    const D = '/v1/runs/{runId}/decisions';
    check('POST', D, await decide(tokens.approver, { decision: 'approve' }));
    check('POST', D, await decide(undefined, { decision: 'approve', actionId }));
    check('POST', D, await decide(tokens.viewer, { decision: 'approve', actionId }));
    check('POST', D, await decide(tokens.other, { decision: 'approve', actionId }));
    const stale = check(
      'POST',
      D,
      await decide(tokens.approver, { decision: 'approve', actionId: 'a999.nothing' }),
    );
    expect([stale.status, stale.body.error?.code]).toEqual([409, 'signal.action_mismatch']);
    expect(stale.body).not.toHaveProperty('accepted');
    check(
      'POST',
      D,
      await decide(tokens.approver, { decision: 'reject', actionId, reason: 'x'.repeat(300_000) }),
    );
    const textDecision = await fetch(`${service.url}/v1/runs/${runId}/decisions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.approver}`, 'content-type': 'application/xml' },
      body: 'approve',
    });
    check('POST', D, {
      status: textDecision.status,
      headers: textDecision.headers,
      body: (await textDecision.json()) as ApiAnswer['body'],
    });
    const approved = check(
      'POST',
      D,
      await decide(tokens.approver, { decision: 'approve', actionId, reason: 'ok' }),
    );
    expect(approved.body).toMatchObject({ accepted: true, principal: 'dana@acme' });
    const again = check('POST', D, await decide(tokens.approver, { decision: 'approve', actionId }));
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toMatch(/^(signal\.|run\.closed)/);
    held.abort();
    await first;

    // Cancel: 200, 409 (ended), 400, 401, 404, 413, 415; 429 past the caller's decision rate.
    const C = '/v1/runs/{runId}/cancel';
    const victim = check('POST', '/v1/runs', await api(tokens.customer, 'POST', '/v1/runs', refund)).body
      .runId!;
    await waitForRun(api, tokens.operator, victim, (r) => r.pendingAction !== null);
    check('POST', C, await api(tokens.operator, 'POST', `/v1/runs/${victim}/cancel`, {}));
    check('POST', C, await api(undefined, 'POST', `/v1/runs/${victim}/cancel`, { reason: 'x' }));
    check('POST', C, await api(tokens.other, 'POST', `/v1/runs/${victim}/cancel`, { reason: 'x' }));
    check(
      'POST',
      C,
      await api(tokens.operator, 'POST', `/v1/runs/${victim}/cancel`, { reason: 'x'.repeat(300_000) }),
    );
    const textCancel = await fetch(`${service.url}/v1/runs/${victim}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.operator}`, 'content-type': 'application/xml' },
      body: 'stop',
    });
    check('POST', C, {
      status: textCancel.status,
      headers: textCancel.headers,
      body: (await textCancel.json()) as ApiAnswer['body'],
    });
    expect(
      check(
        'POST',
        C,
        await api(tokens.operator, 'POST', `/v1/runs/${victim}/cancel`, { reason: 'withdrawn' }),
      ).status,
    ).toBe(200);
    const ended = check(
      'POST',
      C,
      await api(tokens.operator, 'POST', `/v1/runs/${later.body.runId!}/cancel`, { reason: 'late' }),
    );
    expect([ended.status, ended.body.error?.code]).toEqual([409, 'run.closed']);
    check(
      'POST',
      D,
      await tightApi(tokens.approver, 'POST', `/v1/runs/${victim}/decisions`, {
        decision: 'approve',
        actionId,
      }),
    );
    const rated = await tightApi(tokens.approver, 'POST', `/v1/runs/${victim}/cancel`, { reason: 'x' });
    expect([check('POST', C, rated).status, rated.body.error?.code]).toEqual([429, 'rate.decisions_user']);
    check(
      'POST',
      D,
      await tightApi(tokens.approver, 'POST', `/v1/runs/${victim}/decisions`, {
        decision: 'approve',
        actionId,
      }),
    );

    // The open routes.
    check('GET', '/healthz', await api(undefined, 'GET', '/healthz'));
    check('GET', '/readyz', await api(undefined, 'GET', '/readyz'));
    const metrics = await fetch(`${service.url}/metrics`);
    check('GET', '/metrics', { status: metrics.status, headers: metrics.headers, body: {} }, 'text/plain');
    check('GET', '/openapi.json', await api(undefined, 'GET', '/openapi.json'));
    const inbox = await fetch(`${service.url}/inbox`);
    check('GET', '/inbox', { status: inbox.status, headers: inbox.headers, body: {} }, 'text/html');
  });

  it('spends no rate token on an idempotent retry of a run it admitted (429 never answers one)', async () => {
    const key = `retry-${Date.now()}`;
    const first = check(
      'POST',
      '/v1/runs',
      await tightApi(tokens.customer, 'POST', '/v1/runs', support, { 'idempotency-key': key }),
    );
    expect(first.status).toBe(201);
    for (let i = 0; i < 3; i++) {
      const retry = check(
        'POST',
        '/v1/runs',
        await tightApi(tokens.customer, 'POST', '/v1/runs', support, { 'idempotency-key': key }),
      );
      expect([retry.status, retry.body.runId]).toEqual([200, first.body.runId]);
    }
    // The burst of 2 still holds its second token; the third start is over the rate.
    expect(
      check('POST', '/v1/runs', await tightApi(tokens.customer, 'POST', '/v1/runs', support)).status,
    ).toBe(201);
    const over = check('POST', '/v1/runs', await tightApi(tokens.customer, 'POST', '/v1/runs', support));
    expect([over.status, over.body.error?.code]).toEqual([429, 'rate.starts_user']);
    // Over the rate now, a retry of the admitted run is still its answer, not a 429.
    const late = check(
      'POST',
      '/v1/runs',
      await tightApi(tokens.customer, 'POST', '/v1/runs', support, { 'idempotency-key': key }),
    );
    expect([late.status, late.body.runId]).toEqual([200, first.body.runId]);
  });

  it('drove every status the document lists (but those driven elsewhere)', () => {
    expect(missing(NOT_DRIVEN)).toEqual([]);
  });
});
