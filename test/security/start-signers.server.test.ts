import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { startIdentityOf } from '../support/start-identity.js';

/**
 * The test fixtures sign their starts (docs/authorization.md, "Who a run is for"): a test person's
 * `userId` with their own key, another user in a tenant through the test delegate, the rest (and a test
 * that asks for it) unsigned. Each token is checked as the run checks it.
 */
describe('signed starts of the test fixtures', { timeout: 60_000 }, () => {
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

  it('a start without a user, a user without a tenant, and an opted-out start are unsigned', async () => {
    expect(await startIdentityOf(await start({ task }))).toBe('unsigned');
    expect(await startIdentityOf(await start({ task, userId: 'u-1' }))).toBe('unsigned');
    expect(
      await startIdentityOf(
        await start({ task, userId: 'C1001', tenantId: 'acme' }, undefined, { unsigned: true }),
      ),
    ).toBe('unsigned');
  });
});
