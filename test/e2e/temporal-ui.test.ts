import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import * as activities from '../../bench/lib/plumbing-activities.js';
import { artifactsDir, launchChromium } from '../support/browser.js';
import {
  connectTestTemporal,
  createTestWorker,
  startWorker,
  uniqueTaskQueue,
  type TestTemporal,
} from '../support/temporal.js';
import { testRunId } from '../support/run-id.js';

const uiUrl = inject('temporalUiUrl');

describe.skipIf(!uiUrl)('Temporal UI lists the workflows the tests ran', () => {
  let t: TestTemporal;
  let stop: () => Promise<void>;
  const taskQueue = uniqueTaskQueue('ui');
  const workflowId = testRunId('ui-check');

  beforeAll(async () => {
    t = await connectTestTemporal();
    stop = startWorker(await createTestWorker(t, { taskQueue, activities }));
    const handle = await t.client.workflow.start('plumbingWorkflow', {
      taskQueue,
      workflowId,
      args: [{ name: 'ui' }],
    });
    await handle.signal('proceed', { note: 'seen in the UI' });
    await handle.result();
  });
  afterAll(async () => {
    await stop?.();
    await t?.close();
  });

  it('shows the finished workflow in the list (headless Chromium, screenshot saved)', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(`${uiUrl}/namespaces/${t.namespace}/workflows`);
      await page.getByText(workflowId).first().waitFor({ timeout: 30_000 });
      const shot = join(artifactsDir, 'temporal-ui-workflows.png');
      await page.screenshot({ path: shot, fullPage: false });
      expect(existsSync(shot) && statSync(shot).size > 10_000).toBe(true);
    } finally {
      await browser.close();
    }
  });
});
