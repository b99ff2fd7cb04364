import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { artifactsDir, launchChromium } from '../support/browser.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';

const uiUrl = inject('temporalUiUrl');

describe.skipIf(!uiUrl)('Temporal UI shows agent runs a person can filter and inspect', () => {
  let h: HarnessFixture;
  let workflowId: string;
  beforeAll(async () => {
    h = await createHarnessFixture('ui-runs');
    const handle = await h.start({ task: { message: 'please refund ORD-1001', customerId: 'C1001' } });
    workflowId = handle.workflowId;
    await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('filters runs awaiting confirmation by search attribute, opens one, shows its history', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
      const query = encodeURIComponent(`AgentStatus="awaiting_confirmation" AND WorkflowId="${workflowId}"`);
      await page.goto(`${uiUrl}/namespaces/${h.t.namespace}/workflows?query=${query}`);
      const link = page.getByRole('link', { name: workflowId }).first();
      await link.waitFor({ timeout: 30_000 });
      await page.screenshot({ path: join(artifactsDir, 'temporal-ui-awaiting-confirmation.png') });
      await link.click();
      await page.getByText('Event History').first().waitFor({ timeout: 30_000 });
      await expect.poll(() => page.content(), { timeout: 30_000 }).toContain('order.read@v1 #1');
      await page.screenshot({ path: join(artifactsDir, 'temporal-ui-run-history.png'), fullPage: true });
      const html = await page.content();
      // Activity summaries name tool, version and invocation number.
      expect(html).toContain('logistics.read@v1 #2');
      expect(html).toContain('policy.search.refund@v1 #3');
      expect(html).toContain('Running');
    } finally {
      await browser.close();
    }
  });
});
