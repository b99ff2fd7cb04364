import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnTs, waitForExit } from '../support/processes.js';

describe('the main job (npm start -- --exit)', () => {
  it('runs the refund story to a verified success and exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-main-'));
    const child = spawnTs('apps/refund/main.ts', ['--exit'], {
      HARNESS_TASK_QUEUE: `main-job-${Date.now()}`,
      HARNESS_STORE_URL: `sqlite:${join(dir, 'evidence.db')}`,
      HARNESS_REFUND_DB: join(dir, 'refund.db'),
    });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    const code = await waitForExit(child);
    // The demo customer (the owner of the demo order) signs the start: the run is verifiably theirs.
    expect(output).toMatch(/Started run refund-ord-demo-\S+ .*, signed by C1001 with key \S+/);
    expect(output).toContain('Run is awaiting_confirmation (confirmation_required). Human request:');
    expect(output).toMatch(
      /Operator demo-approver@main-job approves a\d+\.refund\.create\.[0-9a-f]{12}, signed with key/,
    );
    expect(output).toContain('the run answered: accepted');
    expect(output).toMatch(/Run succeeded: .*"outcome":"refunded"/);
    expect(output).toMatch(/\[verified\] refund\.verification/);
    expect(output).toContain('Web UI: http://');
    expect(code).toBe(0);
  });
});
