import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { testRunId } from '../support/run-id.js';

/** A task the refund graph refuses at once (no approval, no refund): the run ends quickly. */
const REFUSED = { message: 'refund ORD-2001 please', customerId: 'C1001' };

/**
 * A workflow id started again after its run closed (Temporal allows it by default; a Schedule backfill
 * of the same time, or a plain client, can do it): the evidence store files a run under its workflow
 * id, and the first run's records stand. The second execution must end, promptly and failed, with the
 * first run's evidence unchanged, not retry its event writes for many minutes.
 */
describe('a workflow id used again after its run closed', () => {
  let h: HarnessFixture;

  beforeAll(async () => {
    h = await createHarnessFixture('reused-id');
  });

  afterAll(async () => {
    await h?.close();
  });

  it("fails the second execution on the first run's evidence (store.conflict), which stands unchanged", async () => {
    const id = testRunId('reused-id');
    const first = await h.start({ task: REFUSED }, id);
    expect(await first.result()).toMatchObject({ status: 'succeeded', output: { outcome: 'refused' } });
    const firstRun = (await first.describe()).runId;
    const before = await h.composition.store.listEvents(id);
    expect(before.length).toBeGreaterThan(0);

    const second = await h.start({ task: REFUSED }, id);
    const secondRun = (await second.describe()).runId;
    expect(secondRun).not.toBe(firstRun);
    const failure = await second.result().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const causes: string[] = [];
    for (let c: unknown = failure; c instanceof Error; c = c.cause)
      causes.push(`${(c as { type?: string }).type ?? c.name}: ${c.message}`);
    expect(causes.join('\n')).toMatch(/store\.conflict.*already exists with different content/);
    expect((await second.describe()).status.name).toBe('FAILED');
    // The first run's evidence is exactly as it was.
    expect(await h.composition.store.listEvents(id)).toEqual(before);
  }, 150_000);
});
