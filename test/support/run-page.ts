import type { Page } from 'playwright-core';
import type { AttestationRegistry } from '../../src/contract/chain-head.js';
import { launchChromium } from './browser.js';
import type { HarnessFixture } from './harness.js';
import { createTokenIssuer, startTestService, type ServiceTarget } from './run-service.js';

/** A run page open in headless Chromium, with the service that serves it; `close` ends both. */
export interface OpenedRunPage {
  readonly page: Page;
  close(): Promise<void>;
}

/**
 * Open the run page (docs/api.md) of `runId` as an operator of `tenant` (role `operator`), over a
 * fresh run service on `target`'s client and store that trusts `attestation` for the verification.
 */
export async function openRunPage(
  target: HarnessFixture | ServiceTarget,
  runId: string,
  tenant: string,
  attestation?: AttestationRegistry,
): Promise<OpenedRunPage> {
  const issuer = await createTokenIssuer();
  const service = await startTestService(target, issuer, {}, attestation);
  const browser = await launchChromium();
  const operator = await issuer.token({ sub: 'ops@shop', tenant, roles: ['operator'], kind: 'operator' });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${service.url}/runs/${encodeURIComponent(runId)}#token=${operator}`);
  return {
    page,
    close: async () => {
      await browser.close();
      await service.app.close();
    },
  };
}
