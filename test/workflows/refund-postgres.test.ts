import { join } from 'node:path';
import { TEST_PRINCIPALS } from '../support/principals.js';
import { decide } from '../support/decisions.js';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { type RefundComposition } from '../../apps/refund/composition.js';
import { createShowcaseComposition } from '../../apps/showcase/composition.js';
import { seedDemoOrder } from '../../apps/refund/demo-order.js';
import { createHarnessWorker } from '../../src/worker/harness-worker.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { startWorker } from '../support/temporal.js';

/** Workers on many hosts share a PostgreSQL evidence store; here two workers on one task queue. */
describe('refund runs with a PostgreSQL evidence store and two workers', () => {
  let pgServer: TestPostgres;
  let h: HarnessFixture;
  let second: RefundComposition;
  let stopSecond: () => Promise<void>;
  let secondConnection: NativeConnection;

  beforeAll(async () => {
    pgServer = await startTestPostgres();
    const storeUrl = pgServer.freshUrl();
    h = await createHarnessFixture('refund-pg', { storeUrl, identity: 'host-a' });
    second = await createShowcaseComposition({
      storeUrl,
      refundStorePath: join(h.dir, 'refund.db'),
      identity: 'host-b',
      env: {},
      // Every worker of a fleet trusts the same principal registry.
      principals: TEST_PRINCIPALS,
    });
    secondConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker = await createHarnessWorker({
      connection: secondConnection,
      namespace: h.t.namespace,
      taskQueue: h.taskQueue,
      composition: second,
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    stopSecond = startWorker(worker);
  });
  afterAll(async () => {
    await stopSecond?.();
    await second?.close();
    await secondConnection?.close();
    await h?.close();
    await pgServer?.stop();
  });

  it('runs three refunds to verified success; events and results land in PostgreSQL once', async () => {
    const handles = await Promise.all(
      [1, 2, 3].map(async () => {
        const { orderId, customerId } = seedDemoOrder(
          h.composition.refundStore,
          new Date(Date.now() + Math.floor(Math.random() * 1e6)),
        );
        return h.start({ task: { message: `refund ${orderId}`, customerId } });
      }),
    );
    for (const handle of handles) {
      const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
      await decide(handle, 'approve', {}, waiting);
    }
    for (const handle of handles) {
      const result = (await handle.result()) as { status: string };
      expect(result.status).toBe('succeeded');
      const view = await handle.query<RunView>('state');
      expect(
        view.invocations.filter((i) => i.tool === 'refund.create' && i.status === 'succeeded'),
      ).toHaveLength(1);
      const events = await h.composition.store.listEvents(handle.workflowId);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.at(-2)?.type).toBe('run.completed');
      expect(events.at(-1)?.type).toBe('run.sealed');
      const invocations = await h.composition.store.listInvocations(handle.workflowId);
      expect(invocations.map((i) => i.result?.status)).toEqual([
        'succeeded',
        'succeeded',
        'succeeded',
        'succeeded',
        'succeeded',
      ]);
    }
    expect(h.composition.store.backend).toBe('postgres');
  });
});
