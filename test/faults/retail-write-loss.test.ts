import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { openRetailDbFile, type RetailDb } from '../../apps/retail/db/retail-db.js';
import { RetailDbTemplate } from '../../apps/retail/db/retail-template.js';
import { DB_JSON_PATH } from '../apps/retail/retail-test-support.js';
import { at, call, planText, profileThenRead } from '../workflows/retail/retail-fixture.js';
import { decide } from '../support/decisions.js';
import { historyOf } from '../support/history.js';
import { RETAIL_TEST_ROUTE } from '../support/retail-test-tools.js';
import { killAllWorkerProcesses } from '../support/worker-process.js';
import { createFaultRig, resultOf, waitForPause, type FaultRig } from './fault-rig.js';

const EMAIL = 'sofia.rossi2645@example.com';
const ORDER = '#W5918442';
const SCRIPT = {
  entries: [
    at(0, {
      text: planText([
        {
          step_id: 's1',
          objective: 'authenticate',
          capability: 'authenticate',
          dependencies: [],
          success_condition: [{ fact: 'user.authenticated', op: 'eq', value: true }],
        },
        {
          step_id: 's2',
          objective: `read ${ORDER}`,
          capability: 'order_details',
          dependencies: ['s1'],
          success_condition: [{ fact: 'order.id', op: 'eq', value: ORDER }],
        },
        {
          step_id: 's3',
          objective: `cancel ${ORDER}`,
          capability: 'cancel_pending_order',
          dependencies: ['s2'],
          gate: 'confirmation',
          success_condition: [{ fact: 'order.last_action', op: 'eq', value: 'cancel_pending_order' }],
        },
      ]),
    }),
    at(1, { toolCalls: [call('find_user_id_by_email', { email: EMAIL })] }),
    at(2, profileThenRead('sofia_rossi_8776', ORDER)),
    at(3, { text: 'Pending.' }),
    at(4, { toolCalls: [call('cancel_pending_order', { order_id: ORDER, reason: 'no longer needed' })] }),
    at(5, { text: `Order ${ORDER} is cancelled.` }),
  ],
};

/**
 * Own case 10 of issue 38: a worker is SIGKILLed in the middle of a plan, after the cancel committed
 * and before it answered. A fresh worker process replays the run from its history (the plan, the route
 * decisions on the pinned catalogue) and settles the write through the retail reconciler: the order is
 * cancelled once, under one idempotency key.
 */
describe('faults: a retail plan whose worker dies during its write', { timeout: 300_000 }, () => {
  let rig: FaultRig;
  let handle: WorkflowHandle | undefined;
  afterAll(async () => {
    await killAllWorkerProcesses();
    await handle?.terminate('test cleanup').catch(() => undefined);
    await rig?.close();
  });

  it('replays on a fresh worker with the catalogue pinned and cancels the order exactly once', async () => {
    rig = await createFaultRig('retail-write-loss');
    const dbPath = join(rig.dir, 'retail.db');
    RetailDbTemplate.fromJsonFile(DB_JSON_PATH).writeTo(dbPath).close();
    const scriptPath = join(rig.dir, 'retail-script.json');
    writeFileSync(scriptPath, JSON.stringify(SCRIPT));
    const retailEnv = { HARNESS_TEST_RETAIL_DB: dbPath, HARNESS_TEST_RETAIL_SCRIPT: scriptPath };
    const first = await rig.worker({ env: { ...retailEnv, HARNESS_TEST_RETAIL_WRITE_PAUSE_MS: '120000' } });
    handle = await rig.start({
      profile: { name: 'retail.agent', version: 'v2' },
      modelRoute: RETAIL_TEST_ROUTE,
      task: { message: 'Please cancel my pending order.' },
      activityTimeouts: { writeHeartbeatSeconds: 2 },
    });
    const waiting = await waitForPause(handle, 'awaiting_confirmation');
    await decide(handle, 'approve', {}, waiting);
    const db: RetailDb = openRetailDbFile(dbPath);
    try {
      // The cancel committed; the first worker sits in its pause with the answer unreported.
      await expect.poll(() => db.order(ORDER)?.status, { timeout: 60_000, interval: 200 }).toBe('cancelled');
      await first.kill();
      await rig.worker({ env: retailEnv });
      const result = await resultOf(handle);
      expect(result.status).toBe('succeeded');
      const keys = db.sqlite
        .prepare("SELECT idempotency_key FROM applied_writes WHERE tool = 'retail.cancel_pending_order'")
        .all() as { idempotency_key: string }[];
      expect(keys).toHaveLength(1);
      const refunds = db.order(ORDER)!.payment_history.filter((p) => p.transaction_type === 'refund');
      const payments = db.order(ORDER)!.payment_history.filter((p) => p.transaction_type === 'payment');
      expect(refunds).toHaveLength(payments.length);
    } finally {
      db.close();
    }
    const events = await rig.composition.store.listEvents(handle.workflowId);
    const digests = new Set(
      events
        .filter((e) => e.type === 'route.decided')
        .map((e) => (e.data.catalogue as { digest: string }).digest),
    );
    expect(digests.size).toBe(1);
    expect(
      events.filter((e) => e.type === 'plan.step_completed').map((e) => [e.data.stepId, e.data.outcome]),
    ).toEqual([
      ['s1', 'succeeded'],
      ['s2', 'succeeded'],
      ['s3', 'succeeded'],
    ]);
    // The write was settled after the loss, never dispatched blindly again.
    const history = await historyOf(handle);
    expect(
      history.filter((e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT').length,
    ).toBeGreaterThanOrEqual(1);
  });
});
