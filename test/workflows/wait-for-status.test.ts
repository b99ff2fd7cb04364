/**
 * `waitForStatus` and `getRunView` (agent-harness/client) against real runs on the dev server: the
 * wait a quickstart app writes instead of its own poll loop over the `state` query.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRunView, waitForStatus } from '../../src/client/index.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { approvePending } from '../support/decisions.js';

describe('waitForStatus on the real server', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('wait-status');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('resolves with the typed view once the run waits, and after the approval with succeeded', async () => {
    const handle = await h.start({ task: { message: 'refund ORD-1001 please', customerId: 'C1001' } });
    // right after the start there may be no view yet (tools not pinned): undefined, never a throw
    const early = await getRunView(handle);
    if (early !== undefined) expect(typeof early.status).toBe('string');
    const waiting = await waitForStatus(handle, ['awaiting_confirmation'], { timeoutMs: 60_000 });
    expect(waiting.status).toBe('awaiting_confirmation');
    expect(waiting.pendingAction?.kind).toBe('confirmation');
    expect(waiting.humanRequest?.requestSummary).toBeTruthy();
    expect((await getRunView(handle))?.pendingAction?.actionId).toBe(waiting.pendingAction?.actionId);

    // waiting for a status it does not reach times out, naming where it is
    await expect(waitForStatus(handle, 'succeeded', { timeoutMs: 1_500 })).rejects.toMatchObject({
      code: 'run.wait_timeout',
      message: expect.stringContaining('last status: awaiting_confirmation') as string,
    });

    await approvePending(handle, { reason: 'ok' });
    const done = await waitForStatus(handle, ['succeeded', 'failed'], { timeoutMs: 60_000 });
    expect(done.status).toBe('succeeded');
    expect(done.invocations.filter((i) => i.tool === 'refund.create')).toHaveLength(1);
  });

  it('rejects when the run ends in another status', async () => {
    // another customer's order: refused without a write, the run ends succeeded without waiting
    const handle = await h.start({ task: { message: 'refund ORD-2001 please', customerId: 'C1001' } });
    await expect(waitForStatus(handle, 'awaiting_confirmation', { timeoutMs: 60_000 })).rejects.toMatchObject(
      {
        code: 'run.closed_in_other_status',
        message: expect.stringContaining('closed in succeeded') as string,
        details: expect.objectContaining({ status: 'succeeded' }) as object,
      },
    );
  });

  it('rejects when the workflow is closed from outside while the run waits', async () => {
    const handle = await h.start({ task: { message: 'refund ORD-1001 please', customerId: 'C1001' } });
    await waitForStatus(handle, 'awaiting_confirmation', { timeoutMs: 60_000 });
    await handle.terminate('test: closed from outside');
    await expect(waitForStatus(handle, 'succeeded', { timeoutMs: 60_000 })).rejects.toMatchObject({
      code: 'run.closed_in_other_status',
      message: expect.stringContaining(
        'closed in TERMINATED (last run status awaiting_confirmation)',
      ) as string,
    });
  });
});
