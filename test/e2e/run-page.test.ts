import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { testAttestation } from '../support/attestation.js';
import { artifactsDir, launchChromium } from '../support/browser.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { createTokenIssuer, startTestService, type TokenIssuer } from '../support/run-service.js';

/** A reason with markup in it: the page must show it as text and run nothing. */
const HOSTILE_REASON = 'checked <img src=x onerror="window.__pwned=1"><b>bold</b>';

/**
 * The run page (GET /runs/<id>, docs/api.md) in headless Chromium: a refund run approved through the
 * API shows its steps in order, the refund's "Why was this allowed?" (the policy decision and the
 * signed approval) and "Did it happen once?" (the idempotency key, one attempt, applied once) panels,
 * markup in run data as text, the verification badge (verified, then failed with its reason code once
 * the database is tampered with), the bundle download, and no CSP violation; a customer sees no
 * invocation records and no verification; another tenant's operator sees no run.
 */
describe('run page', { timeout: 180_000 }, () => {
  let h: HarnessFixture;
  let issuer: TokenIssuer;
  let service: { app: FastifyInstance; url: string };
  let browser: Browser;
  const attestation = testAttestation('run-page-worker');

  beforeAll(async () => {
    h = await createHarnessFixture('run-page', {}, { attestation: attestation.signer });
    issuer = await createTokenIssuer();
    service = await startTestService(
      h,
      issuer,
      { stream: { pollMs: 100, heartbeatMs: 2_000 } },
      attestation.registry,
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.app.close();
    await h?.close();
  });

  const api = async (token: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  async function openPage(token: string, runId: string): Promise<{ page: Page; violations: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(`${service.url}/runs/${encodeURIComponent(runId)}#token=${token}`);
    return { page, violations };
  }

  it('shows a refund run: steps in order, why the refund was allowed, that it happened once', async () => {
    const tenant = `page${Date.now().toString(36)}`;
    const customer = await issuer.token({ sub: 'C1001', tenant, roles: ['requester'], kind: 'customer' });
    const approver = await issuer.token({
      sub: 'amy@shop',
      tenant,
      roles: ['refund_approver'],
      kind: 'approver',
    });
    const operator = await issuer.token({ sub: 'ops@shop', tenant, roles: ['operator'], kind: 'operator' });
    const started = await api(customer, '/v1/runs', {
      profile: 'refund.graph',
      task: { message: 'refund ORD-1001 please', customerId: 'C1001' },
      modelRoute: 'scripted/refund',
    });
    expect(started.status).toBe(201);
    const runId = started.body.runId as string;
    let actionId: string | undefined;
    await expect
      .poll(
        async () => {
          const r = await api(approver, `/v1/runs/${runId}`);
          actionId = (r.body.pendingAction as { actionId?: string } | null)?.actionId;
          return actionId;
        },
        { timeout: 60_000 },
      )
      .toBeDefined();
    const decided = await api(approver, `/v1/runs/${runId}/decisions`, {
      decision: 'approve',
      actionId,
      reason: HOSTILE_REASON,
    });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);

    const { page, violations } = await openPage(operator, runId);
    await expect
      .poll(() => page.locator('[data-role=status]').innerText(), { timeout: 60_000 })
      .toBe('succeeded');
    const effect = page.locator('[data-role=effect][data-tool="refund.create"]');
    await expect.poll(() => effect.count(), { timeout: 30_000 }).toBe(1);
    await expect
      .poll(() => effect.locator('[data-role=approval]').count(), { timeout: 30_000 })
      .toBeGreaterThan(0);
    const why = await effect.locator('[data-role=why]').innerText();
    expect(why).toContain('refund.rules@v1');
    expect(why).toContain('refund.within_policy');
    expect(why).toContain('amy@shop');
    expect(why).toContain('<img src=x'); // the markup as text
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('#effects b').count()).toBe(0);
    expect(await effect.locator('[data-role=applied]').innerText()).toBe('applied 1 time');
    expect(await effect.locator('[data-role=key]').innerText()).not.toBe('');
    expect(await effect.locator('[data-role=once] tr').count()).toBe(2); // header and one attempt
    // The refund's arguments and result, behind a reveal; kept when a live event re-renders the panel.
    expect(await effect.locator('[data-role=payload]').count()).toBe(0);
    await effect.locator('[data-role=reveal-payload]').click();
    await expect.poll(() => effect.locator('[data-role=payload]').count(), { timeout: 30_000 }).toBe(1);
    const payload = await effect.locator('[data-role=payload]').innerText();
    expect(payload).toContain('ORD-1001');
    expect(payload).toContain('"status": "succeeded"');
    expect(payload).toContain('"source": "executor"');
    // The steps, in the order the run took them.
    const titles = await page.locator('.group h3').allInnerTexts();
    const at = (t: string) => titles.indexOf(t);
    expect(at('Step query_order')).toBeGreaterThan(-1);
    expect(at('Step query_order')).toBeLessThan(at('Step request_confirmation'));
    expect(at('Step request_confirmation')).toBeLessThan(at('Step create_refund'));
    // The verification badge: every check of `harness verify` passed (the seal and commit points among them), and the command to run it.
    await expect
      .poll(() => page.locator('[data-role=badge]').innerText(), { timeout: 30_000 })
      .toBe('verified');
    // Eleven checks: chain, heads, seal, commits, decisions, writes, history, artifacts, policy, commitments, erasures.
    expect(await page.locator('[data-role=check][data-ok=true]').count()).toBe(11);
    expect(await page.locator('[data-role=verify-command]').innerText()).toBe(`harness verify ${runId}`);
    const download = page.waitForEvent('download');
    await page.locator('#export').click();
    expect((await download).suggestedFilename()).toMatch(/\.proof\.json$/);
    // The inspector shows an event's data.
    await page.locator('.ev[data-type="policy.decided"]').first().click();
    expect(await page.locator('[data-role=event-json]').innerText()).toContain('policyVersion');
    // A model call's inspector shows the context it was sent; the contents only after "Reveal content".
    await page.locator('.ev[data-type="model.completed"]').first().click();
    const context = page.locator('[data-role=context]');
    await expect
      .poll(() => context.locator('[data-role=context-item]').count(), { timeout: 30_000 })
      .toBeGreaterThan(0);
    expect(await context.locator('[data-role=context-item][data-kind=instruction]').count()).toBeGreaterThan(
      0,
    );
    expect(await context.locator('[data-role=context-budget]').innerText()).toMatch(
      /ctx\d+ · \d+ of \d+ tokens/,
    );
    expect(await context.locator('[data-role=context-content]').count()).toBe(0);
    await context.locator('#reveal-context').click();
    await expect
      .poll(() => context.locator('[data-role=context-content]').count(), { timeout: 30_000 })
      .toBeGreaterThan(0);
    expect((await context.locator('[data-role=context-content]').allInnerTexts()).join('\n')).toContain(
      'ORD-1001',
    );
    await page.screenshot({ path: join(artifactsDir, 'run-page-refund.png'), fullPage: true });
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('#audit').innerText()).toContain('refund.create');
    await page.screenshot({ path: join(artifactsDir, 'run-page-audit-print.png'), fullPage: true });
    expect(violations).toEqual([]);

    // Someone with write access to the evidence database changes the policy decision of the refund:
    // the page's badge says so, with the check that failed.
    const db = new Database(join(h.dir, 'evidence.db'));
    try {
      db.prepare(
        `UPDATE events SET body = replace(body, '"refund.within_policy"', '"refund.forged"') WHERE run_id = ? AND type = 'policy.decided'`,
      ).run(runId);
    } finally {
      db.close();
    }
    const after = await openPage(operator, runId);
    await expect
      .poll(() => after.page.locator('[data-role=badge]').innerText(), { timeout: 30_000 })
      .toBe('verification failed');
    expect(await after.page.locator('[data-role=check][data-ok=false]').allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringContaining('chain.event_altered')]),
    );
    await after.page.screenshot({ path: join(artifactsDir, 'run-page-tampered.png'), fullPage: true });

    // The customer who asked: the public events, no invocation records.
    const mine = await openPage(customer, runId);
    await expect
      .poll(() => mine.page.locator('[data-role=status]').innerText(), { timeout: 60_000 })
      .toBe('succeeded');
    expect(await mine.page.locator('[data-role=key]').count()).toBe(0);
    expect((await api(customer, `/v1/runs/${runId}/invocations`)).status).toBe(403);
    expect((await api(customer, `/v1/runs/${runId}/context/0`)).status).toBe(403);
    expect((await api(customer, `/v1/runs/${runId}/invocations/1/payload`)).status).toBe(403);
    expect((await api(operator, `/v1/runs/${runId}/invocations/-1/payload`)).status).toBe(400);
    const noCall = await api(operator, `/v1/runs/${runId}/invocations/999/payload`);
    expect([noCall.status, (noCall.body.error as { code?: string }).code]).toEqual([
      404,
      'invocation.not_found',
    ]);
    // The context route: a bad call number is 400, a call with no package 404, a package names its call.
    expect((await api(operator, `/v1/runs/${runId}/context/x`)).status).toBe(400);
    expect((await api(operator, `/v1/runs/${runId}/context/0?reveal=all`)).status).toBe(400);
    const none = await api(operator, `/v1/runs/${runId}/context/999`);
    expect([none.status, (none.body.error as { code?: string }).code]).toEqual([404, 'context.not_found']);
    expect(await mine.page.locator('[data-role=badge]').innerText()).toBe('not available');

    // Another tenant's operator: no such run.
    const stranger = await issuer.token({
      sub: 'ops@other',
      tenant: `${tenant}x`,
      roles: ['operator'],
      kind: 'operator',
    });
    const theirs = await openPage(stranger, runId);
    await expect.poll(() => theirs.page.locator('#error').innerText(), { timeout: 30_000 }).not.toBe('');
    expect(await theirs.page.locator('[data-role=status]').count()).toBe(0);
    expect((await api(stranger, `/v1/runs/${runId}/invocations`)).status).toBe(404);
    expect((await api(stranger, `/v1/runs/${runId}/context/0`)).status).toBe(404);
    expect((await api(stranger, `/v1/runs/${runId}/invocations/1/payload`)).status).toBe(404);
  });
});
