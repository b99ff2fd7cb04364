import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runCli } from '../e2e/cli-support.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { TEST_KEYS, writeKeyFile } from '../support/principals.js';
import { startIdentityOf, startInputOf } from '../support/start-identity.js';

/**
 * Starters sign their starts (docs/authorization.md, "Who a run is for"). The test fixtures: a test
 * person's `userId` with their own key, another user in a tenant through the test delegate, the rest
 * (and a test that asks for it) unsigned. `harness start --key`: the key's principal. Each token is
 * checked as the run checks it.
 */
describe('signed starts of the test fixtures and the CLI', { timeout: 60_000 }, () => {
  let h: HarnessFixture;
  const started: WorkflowHandle[] = [];
  const task = { message: 'refund ORD-1001 please', customerId: 'C1001' };
  const start = async (...args: Parameters<HarnessFixture['start']>) => {
    const handle = await h.start(...args);
    started.push(handle);
    return handle;
  };

  beforeAll(async () => {
    h = await createHarnessFixture('start-signers');
  });
  afterAll(async () => {
    await Promise.all(started.map((s) => s.terminate('test done').catch(() => undefined)));
    await h?.close();
  });

  it("a test person's start is signed with their key; another user in a tenant by the delegate", async () => {
    expect(await startIdentityOf(await start({ task, userId: 'C1001' }))).toMatchObject({
      ok: true,
      identity: { verified: true, userId: 'C1001', kind: 'customer', keyId: 'c1001-1' },
    });
    expect(
      await startIdentityOf(await start({ task, userId: 'lead@example.com', tenantId: 'acme' })),
    ).toMatchObject({
      ok: true,
      identity: { userId: 'lead@example.com', kind: 'approver', tenantId: 'acme', keyId: 'lead-1' },
    });
    const delegated = await startIdentityOf(await start({ task, userId: 'u-1', tenantId: 'acme' }));
    expect(delegated).toMatchObject({
      ok: true,
      identity: { userId: 'u-1', kind: 'customer', roles: [], tenantId: 'acme', via: 'run-service' },
    });
  });

  it("without a userId, the task's customer signs when a test person; else the start is unsigned", async () => {
    expect(await startIdentityOf(await start({ task }))).toMatchObject({
      ok: true,
      identity: { userId: 'C1001', kind: 'customer', keyId: 'c1001-1' },
    });
    const other = { message: 'refund ORD-2001 please', customerId: 'C2002' };
    expect(await startIdentityOf(await start({ task: other }))).toBe('unsigned');
    expect(await startIdentityOf(await start({ task: { message: 'hello' } }))).toBe('unsigned');
    expect(await startIdentityOf(await start({ task: other, userId: 'u-1' }))).toBe('unsigned');
    expect(
      await startIdentityOf(
        await start({ task, userId: 'C1001', tenantId: 'acme' }, undefined, { unsigned: true }),
      ),
    ).toBe('unsigned');
  });

  it("harness start --key signs the start for the key's principal; --user must be that principal", async () => {
    const env = {
      HARNESS_TASK_QUEUE: h.taskQueue,
      // An approver's key in HARNESS_KEY is for decisions: it never signs a start.
      HARNESS_KEY: writeKeyFile(TEST_KEYS.ops, h.dir),
    };
    const key = writeKeyFile(TEST_KEYS.customer, h.dir);
    const input = JSON.stringify(task);
    const signedId = `cli-signed-${Date.now().toString(36)}`;
    const signed = await runCli(
      [
        'start',
        'refund.graph',
        '--input',
        input,
        '--id',
        signedId,
        '--key',
        key,
        '--tenant',
        'acme',
        '--json',
      ],
      env,
    );
    expect(signed.code, signed.stderr).toBe(0);
    expect(JSON.parse(signed.stdout)).toMatchObject({ workflowId: signedId, signedBy: 'C1001' });
    const handle = h.t.client.workflow.getHandle(signedId);
    started.push(handle);
    expect(await startInputOf(handle)).toMatchObject({ userId: 'C1001', tenantId: 'acme' });
    expect(await startIdentityOf(handle)).toMatchObject({
      ok: true,
      identity: { userId: 'C1001', kind: 'customer', tenantId: 'acme', keyId: 'c1001-1' },
    });

    const plainId = `cli-unsigned-${Date.now().toString(36)}`;
    const plain = await runCli(['start', 'refund.graph', '--input', input, '--id', plainId], env);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('unsigned: the run is anonymous');
    started.push(h.t.client.workflow.getHandle(plainId));
    expect(await startIdentityOf(h.t.client.workflow.getHandle(plainId))).toBe('unsigned');

    const other = await runCli(
      ['start', 'refund.graph', '--input', input, '--key', key, '--user', 'C2002', '--json'],
      env,
    );
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(
      "--user C2002: a start signed with --key is for the key's principal C1001",
    );
    const missing = await runCli(
      ['start', 'refund.graph', '--input', input, '--key', join(h.dir, 'no-such-key.json')],
      env,
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--key');
  });
});
