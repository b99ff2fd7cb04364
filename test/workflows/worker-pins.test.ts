import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createShowcaseComposition } from '../../apps/showcase/composition.js';
import { registerBenchTools } from '../../apps/bench/bench-noop-tool.js';
import type { RefundDrills } from '../../apps/refund/composition.js';
import { REFUND_SCRIPT } from '../../apps/refund/refund-script.js';
import type { ModelScript } from '../../src/index.js';
import { startAgentRun } from '../../src/client/start-run.js';
import { CONFIG_CHANGED, TOOL_DEFINITION_CHANGED } from '../../src/contract/failure-types.js';
import { createHarnessWorker } from '../../src/worker/harness-worker.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { decide } from '../support/decisions.js';
import { refundRunInput } from '../support/harness.js';
import { historyOf } from '../support/history.js';
import { TEST_PRINCIPALS, testStartSigner } from '../support/principals.js';
import { testRunId } from '../support/run-id.js';
import { connectTestTemporal, startWorker, uniqueTaskQueue, type TestTemporal } from '../support/temporal.js';
import { refundRowsIn, waitForPause } from '../faults/fault-rig.js';

/** refund.create is the 4th invocation of the refund graph. */
const CREATE_SEQ = 4;

/**
 * A rolling deploy that changed a tool's definition without a new version (here refund.create@v1
 * declared without `idempotentByKey`): a run that pinned the old definition never runs the call on
 * the new worker. The new worker refuses the call before anything is recorded
 * (`worker.tool_definition_changed`, non-retryable); the run schedules it again without spending an
 * attempt (test/workflows/worker-refusal.test.ts), and a worker with the pinned definition pays the
 * refund, once.
 */
describe('a worker refuses what it cannot serve as the run pinned it', { timeout: 240_000 }, () => {
  let t: TestTemporal;
  const dir = mkdtempSync(join(tmpdir(), 'harness-definition-pin-'));
  const taskQueue = uniqueTaskQueue('definition-pin');
  const stops: (() => Promise<void>)[] = [];

  /**
   * A worker of the tests' app on the shared stores; `drills` changes refund.create's definition,
   * `scripts` adds scripted model routes.
   */
  async function worker(
    drills: RefundDrills = {},
    scripts: Record<string, ModelScript> = {},
  ): Promise<() => Promise<void>> {
    const composition = await createShowcaseComposition({
      storeUrl: `sqlite:${join(dir, 'evidence.db')}`,
      refundStorePath: join(dir, 'refund.db'),
      env: {},
      principals: TEST_PRINCIPALS,
      drills,
      scripts,
      extend: [(registry) => registerBenchTools(registry)],
    });
    const stop = startWorker(
      await createHarnessWorker({
        connection: t.nativeConnection,
        namespace: t.namespace,
        taskQueue,
        composition,
        workflowBundle: { codePath: inject('workflowBundlePath') },
      }),
    );
    const stopAndClose = async () => {
      await stop();
      await composition.close();
    };
    stops.push(stopAndClose);
    return stopAndClose;
  }

  beforeAll(async () => {
    t = await connectTestTemporal();
  });
  afterAll(async () => {
    for (const stop of stops) await stop().catch(() => undefined);
    await t?.close();
  });

  const refusals = async (handle: WorkflowHandle): Promise<string[]> =>
    (await historyOf(handle))
      .flatMap((e) => (e.failureMessage?.includes(TOOL_DEFINITION_CHANGED) ? [e.failureMessage] : []))
      .filter((m, i, all) => all.indexOf(m) === i);

  it('the changed worker records nothing and pays nothing; the pinned definition pays once', async () => {
    const stopOld = await worker();
    const input = refundRunInput({
      task: { message: 'refund ORD-1001 please, it has not shipped', customerId: 'C1001' },
    });
    const signer = testStartSigner(input);
    const handle = await startAgentRun(t.client, {
      taskQueue,
      workflowId: testRunId('definition-pin'),
      input,
      ...(signer ? { signer } : {}),
    });
    const approval = await waitForPause(handle, 'awaiting_confirmation');

    // The deploy: the old worker goes, a worker whose refund.create@v1 is another definition comes.
    await stopOld();
    const stopChanged = await worker({ idempotentByKey: false });
    await decide(handle, 'approve', {}, approval);
    await expect
      .poll(async () => (await refusals(handle)).length, { timeout: 60_000, interval: 300 })
      .toBeGreaterThan(0);
    const [refusal] = await refusals(handle);
    // Refused as it is (agent-run-worker-refusal-v1), not as a write that did not start.
    expect(refusal).toMatch(
      /^worker\.tool_definition_changed: this worker's refund\.create@v1 is sha256:[0-9a-f]{64}, the run pinned sha256:[0-9a-f]{64}$/,
    );
    // Nothing happened: no refund, and no intent recorded by the refusing worker.
    expect(refundRowsIn(dir, `${handle.workflowId}/${CREATE_SEQ}`)).toEqual([]);

    // The rollback (or the old build still serving): a worker with the pinned definition takes the
    // next attempt.
    await stopChanged();
    const stopPinned = await worker();
    const result = (await handle.result()) as { status: string; output: { outcome: string } };
    expect(result.status).toBe('succeeded');
    expect(result.output.outcome).toBe('refunded');
    expect(refundRowsIn(dir, `${handle.workflowId}/${CREATE_SEQ}`)).toHaveLength(1);
    const view = await handle.query<RunView>('state');
    expect(view.invocations.find((i) => i.seq === CREATE_SEQ)?.status).toBe('succeeded');
    // The run tried again after the refusal: more than the graph's four tool activities.
    const scheduled = (await historyOf(handle)).filter((e) => e.activityType === 'runToolV3').length;
    expect(scheduled).toBeGreaterThan(4);
    await stopPinned();
  });

  it("a worker without the run's model route refuses to start the run; a worker with it starts and serves it", async () => {
    // Only this route's worker knows it: the run's first workflow task lands on a worker without it.
    const route = 'scripted/refund-elsewhere';
    const stopWithout = await worker();
    const input = refundRunInput({
      modelRoute: route,
      task: { message: 'refund ORD-1002 please, it has not shipped', customerId: 'C1001' },
    });
    const signer = testStartSigner(input);
    const handle = await startAgentRun(t.client, {
      taskQueue,
      workflowId: testRunId('route-refusal'),
      input,
      ...(signer ? { signer } : {}),
    });
    // The run pins only what its worker serves (agent-run-config-pin-v1): this worker fails the
    // workflow task (worker.config_changed), the run stays running, nothing is scheduled.
    const refused = async () =>
      ((await handle.fetchHistory()).events ?? []).filter((e) =>
        e.workflowTaskFailedEventAttributes?.failure?.message?.includes(
          `${CONFIG_CHANGED}: this worker does not serve the model route the run pins (${route})`,
        ),
      ).length;
    await expect.poll(refused, { timeout: 60_000, interval: 300 }).toBeGreaterThan(0);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect((await historyOf(handle)).filter((e) => e.activityType !== undefined)).toEqual([]);
    await stopWithout();
    await worker({}, { [route]: REFUND_SCRIPT });
    const result = (await handle.result()) as { status: string };
    expect(result.status).toBe('succeeded');
    const view = await handle.query<RunView>('state');
    expect(view.versions.modelRoute).toBe(route);
    expect(view.budget.modelCalls).toBe(1);
    // No activity was tried twice: nothing was scheduled before a worker with the route took the run.
    const attempts = (await historyOf(handle)).filter((e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_STARTED');
    expect(attempts.every((e) => (e.attempt ?? 1) === 1)).toBe(true);
  });
});
