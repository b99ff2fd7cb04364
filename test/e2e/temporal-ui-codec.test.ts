import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cliCacheDir } from '../../src/devserver/cli-locator.js';
import { loadDevServerConfig } from '../../src/devserver/config.js';
import { portIsFree, startDevServer, type StartedDevServer } from '../../src/devserver/dev-server.js';
import { artifactsDir, launchChromium } from '../support/browser.js';
import { TEST_KEYS, writeKeyFile } from '../support/principals.js';
import { privateDevConfig } from '../support/private-dev-config.js';
import { waitForExit, waitForOutput } from '../support/processes.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { runCli, spawnCli } from './cli-support.js';
import { testRunId } from '../support/run-id.js';

/**
 * Two free neighbouring ports for a private dev server (gRPC, UI): picked at random in 17500-17999 so
 * that runs of this file in several checkouts on one machine do not collide.
 */
async function freePortPair(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 17500 + 2 * Math.floor(Math.random() * 250);
    if ((await portIsFree('127.0.0.1', port)) && (await portIsFree('127.0.0.1', port + 1))) return port;
  }
  throw new Error('no two free neighbouring ports in 17500-17999');
}

/** The private dev server's gRPC port (its UI is on PORT + 1) and UI origin, set in beforeAll. */
let PORT = 0;
let UI = '';
const ORDER = 'ORD-1001';
const TASK = JSON.stringify({
  message: `My order ${ORDER} has not shipped, please refund`,
  customerId: 'C1001',
});

/**
 * Everything as an operator would run it, with payload encryption turned on by the environment alone:
 * `harness codec-server`, `harness worker`, `harness start`, `show`, `approve`, `replay`, `history` as
 * processes; the Temporal dev server started with `--ui-codec-endpoint` (server.uiCodecEndpoint); the
 * Web UI in headless Chromium shows the run's decrypted payloads.
 */
describe.skipIf(Boolean(process.env.TEMPORAL_ADDRESS))(
  'Temporal UI decodes encrypted runs through harness codec-server',
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-ui-codec-'));
    const keysFile = join(dir, 'codec-keys.json');
    writeFileSync(
      keysFile,
      JSON.stringify({ keys: [{ id: 'ui-test-1', key: randomBytes(32).toString('base64') }] }),
      {
        mode: 0o600,
      },
    );
    const env: NodeJS.ProcessEnv = {
      HARNESS_CODEC_KEYS_FILE: keysFile,
      TEMPORAL_NAMESPACE: 'default',
      HARNESS_TASK_QUEUE: uniqueTaskQueue('ui-codec'),
      HARNESS_STORE_URL: `sqlite:${join(dir, 'evidence.db')}`,
      HARNESS_REFUND_DB: join(dir, 'refund.db'),
      HARNESS_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      HARNESS_KEY: writeKeyFile(TEST_KEYS.ops, dir),
    };
    const customerKey = writeKeyFile(TEST_KEYS.customer, dir);
    const children: ReturnType<typeof spawnCli>[] = [];
    let codecLog = '';
    let server: StartedDevServer | undefined;
    let codecUrl = '';
    const workflowId = testRunId('ui-codec');

    beforeAll(async () => {
      PORT = await freePortPair();
      UI = `http://127.0.0.1:${PORT + 1}`;
      env.TEMPORAL_ADDRESS = `127.0.0.1:${PORT}`;
      const codecServer = spawnCli(['codec-server', '--port', '0', '--origin', UI, '--json'], env);
      children.push(codecServer);
      codecServer.stderr.on('data', (b: Buffer) => (codecLog += b.toString()));
      const out = await waitForOutput(codecServer, /"url":"[^"]+"/, 60_000);
      codecUrl = (JSON.parse(/\{.*"url".*\}/.exec(out)![0]) as { url: string }).url;
      const { path } = privateDevConfig(PORT, 'harness-ui-codec-', { uiCodecEndpoint: codecUrl });
      server = await startDevServer(loadDevServerConfig(path), (l) => console.error(`[ui-codec] ${l}`));
      const worker = spawnCli(['worker'], env);
      children.push(worker);
      await waitForOutput(worker, /polling .*payloads encrypted \(key ui-test-1\)/, 90_000);
    });
    afterAll(async () => {
      for (const c of children) {
        if (c.exitCode === null) {
          c.kill('SIGINT');
          await Promise.race([waitForExit(c), new Promise((r) => setTimeout(r, 10_000))]);
          if (c.exitCode === null) c.kill('SIGKILL');
        }
      }
      await server?.stop();
    });

    // About 15 CLI processes (a few seconds each on a busy 2-core machine), a browser and a server.
    it(
      'a refund run with the codec on: the CLI reads it, the stored history does not, the UI shows it decoded',
      { timeout: 300_000 },
      async () => {
        const started = await runCli(
          // Signed by the customer: an anonymous refund run is refused (docs/authorization.md).
          ['start', 'refund.graph', '--input', TASK, '--id', workflowId, '--key', customerKey, '--json'],
          env,
        );
        expect(started.code, started.stderr).toBe(0);
        let pendingActionId = '';
        const status = async (): Promise<string> => {
          const r = await runCli(['show', workflowId, '--json'], env);
          expect(r.code, r.stderr).toBe(0);
          const { state } = JSON.parse(r.stdout) as {
            state: { status: string; pendingAction?: { actionId: string } | null };
          };
          pendingActionId = state.pendingAction?.actionId ?? pendingActionId;
          return state.status;
        };
        const until = async (want: string): Promise<void> => {
          const deadline = Date.now() + 60_000;
          let last = '';
          while ((last = await status()) !== want) {
            if (Date.now() > deadline) throw new Error(`run ${workflowId} stayed ${last}, expected ${want}`);
            await new Promise((r) => setTimeout(r, 500));
          }
        };
        await until('awaiting_confirmation');
        const approve = await runCli(
          ['approve', workflowId, '--action', pendingActionId, '--reason', 'policy R001', '--json'],
          env,
        );
        expect(approve.code, approve.stderr).toBe(0);
        await until('succeeded');

        // The exported history is as stored: encrypted. It replays with the keys.
        const history = await runCli(['history', workflowId], env);
        expect(history.code, history.stderr).toBe(0);
        expect(history.stdout).toContain('YmluYXJ5L2VuY3J5cHRlZA=='); // "binary/encrypted"
        expect(history.stdout).not.toContain(Buffer.from(ORDER).toString('base64').slice(0, 8));
        const replay = await runCli(['replay', workflowId], env);
        expect(replay.code, replay.stderr).toBe(0);
        expect(replay.stdout).toContain('replayed OK');
        // The Temporal CLI reads it through the same codec server (no Origin: not a browser request).
        const temporal = join(cliCacheDir(loadDevServerConfig().cli.version), 'temporal');
        const show = (codec: string[]): string =>
          execFileSync(
            temporal,
            [
              'workflow',
              'show',
              '--address',
              `127.0.0.1:${PORT}`,
              '-w',
              workflowId,
              '--output',
              'json',
              ...codec,
            ],
            { encoding: 'utf8' },
          );
        // Its JSON shows payload data in base64: read every `data` field.
        const payloadText = (json: string): string =>
          [...json.matchAll(/"data": "([A-Za-z0-9+/=]+)"/g)]
            .map((m) => Buffer.from(m[1]!, 'base64').toString())
            .join('\n');
        expect(payloadText(show([]))).not.toContain(ORDER);
        expect(payloadText(show(['--codec-endpoint', codecUrl]))).toContain(
          `My order ${ORDER} has not shipped`,
        );

        const browser = await launchChromium();
        try {
          const page = await browser.newPage({ viewport: { width: 1500, height: 1100 } });
          await page.goto(`${UI}/namespaces/default/workflows/${workflowId}`);
          await page.getByText('Event History').first().waitFor({ timeout: 60_000 });
          // The input (the customer's message) and the result (the refund) only exist encrypted in history:
          // the page shows them because the UI decoded them through the codec server.
          await expect
            .poll(() => page.content(), { timeout: 60_000 })
            .toContain(`My order ${ORDER} has not shipped`);
          const text = (): Promise<string> => page.innerText('body');
          await expect.poll(text, { timeout: 30_000 }).toMatch(/"outcome": "refunded"/);
          await expect
            .poll(text, { timeout: 30_000 })
            .toMatch(/Your refund RF-\w+ of 129\.00 CNY for order ORD-1001/);
          // Activity summaries are encrypted user metadata too: the timeline names the tools decoded.
          await expect.poll(text, { timeout: 30_000 }).toContain('order.read@v1 #1');
          await page.screenshot({
            path: join(artifactsDir, 'temporal-ui-codec-decoded.png'),
            fullPage: true,
          });
        } finally {
          await browser.close();
        }
        expect(codecLog).toMatch(
          new RegExp(`origin=${UI.replace(/[.:/]/g, '\\$&')} decode \\d+ payloads namespace=default -> 200`),
        );
      },
    );
  },
);
