import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnTs, waitForExit } from '../support/processes.js';
import { withSchema } from '../support/postgres.js';
import { freshSchema } from './composition.js';
import { realServer, tier, tierEnv } from './tier.js';

/**
 * Issue 37 (b): the main job (`npm start -- --exit`, apps/refund/main.ts) against the real server:
 * TEMPORAL_ADDRESS and the standard TLS environment (client certificate, CA, server name), the
 * evidence store on the tier's PostgreSQL. It starts no server and ends with the refund succeeded;
 * `harness list` (src/cli/connect.ts, the same environment) finds the run by its AgentStatus.
 */
describe.skipIf(!realServer())('real server: the main job over mTLS', () => {
  it('runs the refund story to a verified success and exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'realserver-main-'));
    const storeUrl = withSchema(tier().storeUrl, freshSchema('main'));
    const env = tierEnv('main-job');
    const child = spawnTs('apps/refund/main.ts', ['--exit'], {
      ...env,
      HARNESS_TASK_QUEUE: `main-job-${Date.now()}`,
      HARNESS_STORE_URL: storeUrl,
      HARNESS_REFUND_DB: join(dir, 'refund.db'),
      TEMPORAL_UI_URL: '',
    });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    const code = await waitForExit(child);
    expect(output, output).toContain(
      `Temporal: external server at ${tier().address} (namespace ${tier().namespace})`,
    );
    expect(output).toContain('Run is awaiting_confirmation (confirmation_required). Human request:');
    expect(output).toMatch(/Run succeeded: .*"outcome":"refunded"/);
    expect(output).toMatch(/\[verified\] refund\.verification/);
    // No key, certificate or API key is printed.
    expect(output).not.toContain('PRIVATE KEY');
    expect(output).not.toContain(env.TEMPORAL_API_KEY ?? 'no API key');
    expect(code).toBe(0);

    // The operator CLI over the same connection: SQL visibility filters on the custom attribute.
    const workflowId = /Started run (\S+)/.exec(output)?.[1];
    expect(workflowId).toBeDefined();
    const list = spawnTs('src/cli/main.ts', ['list', '--status', 'succeeded', '--json'], {
      ...env,
      HARNESS_STORE_URL: storeUrl,
    });
    let listed = '';
    list.stdout.on('data', (b: Buffer) => (listed += b.toString()));
    list.stderr.on('data', (b: Buffer) => (listed += b.toString()));
    expect(await waitForExit(list), listed).toBe(0);
    const rows = JSON.parse(listed) as { workflowId: string; status: string; profile: string }[];
    expect(rows).toContainEqual(
      expect.objectContaining({ workflowId, status: 'succeeded', profile: 'refund.graph@v1' }),
    );
  });
});
