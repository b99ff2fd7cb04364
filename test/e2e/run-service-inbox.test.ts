import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactsDir, launchChromium } from '../support/browser.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { createTokenIssuer, startTestService, type TokenIssuer } from '../support/run-service.js';

/**
 * The approval inbox in headless Chromium (docs/api.md): a refund run started through the API shows
 * up, an authorized approver asks the customer a question there and, once answered, approves it, and the page shows it succeeded from the live event
 * stream; a principal without the role sees the same request with no decision buttons.
 */
describe('approval inbox', { timeout: 180_000 }, () => {
  let h: HarnessFixture;
  let issuer: TokenIssuer;
  let service: { app: FastifyInstance; url: string };
  let browser: Browser;

  beforeAll(async () => {
    h = await createHarnessFixture('inbox');
    issuer = await createTokenIssuer();
    // Its own tenant, so runs of other tests never show in this inbox.
    service = await startTestService(h, issuer, { stream: { pollMs: 100, heartbeatMs: 2_000 } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.app.close();
    await h?.close();
  });

  it('an approver approves a refund in the inbox and sees it succeed; a viewer sees no buttons', async () => {
    const tenant = `inbox${Date.now().toString(36)}`;
    const customer = await issuer.token({ sub: 'C1001', tenant, roles: ['requester'], kind: 'customer' });
    const approver = await issuer.token({
      sub: 'amy@shop',
      tenant,
      roles: ['refund_approver'],
      kind: 'approver',
    });
    // Staff who see the tenant's runs and may approve none.
    const viewer = await issuer.token({ sub: 'val@shop', tenant, roles: ['viewer'], kind: 'operator' });
    const res = await fetch(`${service.url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${customer}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        profile: 'refund.graph',
        task: { message: 'refund ORD-1001 please', customerId: 'C1001' },
        modelRoute: 'scripted/refund',
      }),
    });
    expect(res.status).toBe(201);
    const { runId } = (await res.json()) as { runId: string };
    const card = (page: Page) => page.locator(`.card[data-run="${runId}"]`);

    // The viewer: the request is there, with no decision buttons.
    const viewerPage = await browser.newPage();
    await viewerPage.goto(`${service.url}/inbox#token=${viewer}`);
    await expect
      .poll(() => card(viewerPage).locator('[data-role=summary]').count(), { timeout: 60_000 })
      .toBe(1);
    expect(await card(viewerPage).locator('[data-role=approve]').count()).toBe(0);
    expect(await card(viewerPage).locator('[data-role=no-decision]').count()).toBe(1);
    await viewerPage.screenshot({ path: join(artifactsDir, 'inbox-viewer.png'), fullPage: true });

    // The approver approves; the live stream turns the card to succeeded. The page works under its
    // strict Content-Security-Policy: the browser reports no violation.
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(`${service.url}/inbox#token=${approver}`);
    await card(page).locator('[data-role=approve]').waitFor({ timeout: 60_000 });
    expect(await card(page).locator('[data-role=summary]').innerText()).not.toBe('');
    // The run's page is one click away.
    expect(await card(page).locator('[data-role=run-page]').getAttribute('href')).toBe(
      `/runs/${encodeURIComponent(runId)}`,
    );
    // The approver sees the arguments of what they approve.
    expect(await card(page).locator('[data-role=arguments]').innerText()).toContain('ORD-1001');
    await page.screenshot({ path: join(artifactsDir, 'inbox-approver-waiting.png'), fullPage: true });
    // First the approver asks the customer a question; the customer answers; the same request comes back.
    await card(page).locator('[data-role=reason]').fill('Did the parcel ever leave the warehouse?');
    await card(page).locator('[data-role=ask]').click();
    const runStatus = async () =>
      (
        (await (
          await fetch(`${service.url}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${customer}` } })
        ).json()) as { status: string }
      ).status;
    await expect.poll(runStatus, { timeout: 60_000 }).toBe('awaiting_input');
    const answered = await fetch(`${service.url}/v1/runs/${runId}/decisions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${customer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'input', value: 'No, it never shipped.' }),
    });
    expect(answered.status).toBe(200);
    await expect.poll(runStatus, { timeout: 60_000 }).toBe('awaiting_confirmation');
    await page.reload();
    await card(page).locator('[data-role=approve]').waitFor({ timeout: 60_000 });
    expect(await card(page).locator('[data-role=summary]').innerText()).toContain('never shipped');
    await card(page).locator('[data-role=reason]').fill('order checked');
    await card(page).locator('[data-role=approve]').click();
    await expect
      .poll(() => card(page).locator('[data-role=status]').innerText(), { timeout: 60_000 })
      .toBe('succeeded');
    await page.screenshot({ path: join(artifactsDir, 'inbox-approver-succeeded.png'), fullPage: true });
    expect(violations).toEqual([]);
    const run = (await (
      await fetch(`${service.url}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${approver}` } })
    ).json()) as { status: string; decisions: { principal: string; decision: string }[] };
    expect(run.status).toBe('succeeded');
    expect(run.decisions).toEqual(
      expect.arrayContaining([expect.objectContaining({ principal: 'amy@shop', decision: 'approve' })]),
    );
  });
});
