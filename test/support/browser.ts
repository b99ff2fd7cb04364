import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { projectRoot } from '../../src/devserver/config.js';

/** Debian's Chromium (apt-get install chromium); never a downloaded browser. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where tests save screenshots and reports (CI keeps this folder as an artifact). */
export const artifactsDir = join(projectRoot, 'test-artifacts');

export async function launchChromium(): Promise<Browser> {
  mkdirSync(artifactsDir, { recursive: true });
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
