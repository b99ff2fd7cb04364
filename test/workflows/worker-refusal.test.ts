import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createShowcaseComposition } from '../../apps/showcase/composition.js';
import { startAgentRun } from '../../src/client/start-run.js';
import { TOOL_DEFINITION_CHANGED } from '../../src/contract/failure-types.js';
import { createHarnessWorker } from '../../src/worker/harness-worker.js';
import { decide } from '../support/decisions.js';
import { refundRunInput } from '../support/harness.js';
import { historyOf } from '../support/history.js';
import { TEST_PRINCIPALS, testStartSigner } from '../support/principals.js';
import { testRunId } from '../support/run-id.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { connectTestTemporal, startWorker, uniqueTaskQueue, type TestTemporal } from '../support/temporal.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';
import { refundRowsIn, waitForPause } from '../faults/fault-rig.js';

/** refund.create (the write) and refund.verify (a read) are the 4th and 5th invocations of the refund graph. */
const CREATE_SEQ = 4;
const VERIFY_SEQ = 5;

/**
 * A rolling deploy changed a tool's definition without a new version, and workers of both builds
 * serve the task queue (the old one in this process, the changed one in a worker process). A run
 * that pinned the old definition never runs the changed one, for a read as for a write: the changed
 * worker refuses the call before anything is recorded (`worker.tool_definition_changed`,
 * non-retryable), the run schedules it again without spending an attempt of the tool, and a worker
 * with the pinned definition serves it (`tool.worker_refused` names the refusals).
 */
describe(
  'workers of two builds: a run pinned to the old definition never runs the changed one',
  { timeout: 300_000 },
  () => {
    let t: TestTemporal;
    const stops: (() => Promise<void>)[] = [];
    const processes: WorkerProcess[] = [];

    beforeAll(async () => {
      t = await connectTestTemporal();
    });
    afterAll(async () => {
      for (const stop of stops) await stop().catch(() => undefined);
      for (const p of processes) await p.kill();
      await t?.close();
    });

    /** One test's stores and task queue, its old-build worker (in this process) and its reader. */
    async function rig(name: string) {
      const dir = mkdtempSync(join(tmpdir(), `harness-worker-refusal-${name}-`));
      const taskQueue = uniqueTaskQueue(`refusal-${name}`);
      const compose = (identity?: string) =>
        createShowcaseComposition({
          storeUrl: `sqlite:${join(dir, 'evidence.db')}`,
          refundStorePath: join(dir, 'refund.db'),
          env: {},
          ...(identity !== undefined ? { identity } : {}),
          principals: TEST_PRINCIPALS,
        });
      const reader = await compose();
      stops.push(() => reader.close());
      /** The old build's worker (identity `old`). */
      const oldWorker = async () => {
        const composition = await compose('old');
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
      };
      /** The changed build's worker process: `changed` refund tools have another definition. */
      const changedWorker = async (changed: readonly string[]) => {
        const p = await startWorkerProcess({
          taskQueue,
          dir,
          env: { HARNESS_REFUND_CHANGED_DEFINITIONS: changed.join(',') },
        });
        processes.push(p);
        return p;
      };
      /** Start a refund run on the old worker alone and bring it to its confirmation; the old worker stops. */
      const toConfirmation = async () => {
        const stopOld = await oldWorker();
        const input = refundRunInput({
          task: { message: 'refund ORD-1001 please, it has not shipped', customerId: 'C1001' },
        });
        const signer = testStartSigner(input);
        const handle = await startAgentRun(t.client, {
          taskQueue,
          workflowId: testRunId(`refusal-${name}`),
          input,
          ...(signer ? { signer } : {}),
        });
        const approval = await waitForPause(handle, 'awaiting_confirmation');
        await stopOld();
        return { handle, approval };
      };
      /** Who recorded the intents of invocation `seq` (one per attempt the tool spent). */
      const intentsOf = async (handle: WorkflowHandle, seq: number) =>
        ((await reader.store.getInvocation(handle.workflowId, seq))?.intents ?? []).map((i) => ({
          attempt: i.attempt,
          worker: i.workerIdentity,
        }));
      /** The run succeeds, one refund; `tool.worker_refused` names `seq`; no attempt was spent. */
      const finish = async (handle: WorkflowHandle, seq: number) => {
        const result = (await handle.result()) as { status: string; output: { outcome: string } };
        expect(result.status).toBe('succeeded');
        expect(result.output.outcome).toBe('refunded');
        expect(refundRowsIn(dir, `${handle.workflowId}/${CREATE_SEQ}`)).toHaveLength(1);
        const events = await reader.store.listEvents(handle.workflowId);
        // Other calls the changed build cannot serve may be refused too (both builds serve at once).
        const refused = events
          .filter((e) => e.type === 'tool.worker_refused' && e.data.seq === seq)
          .map((e) => e.data);
        expect(refused).toEqual([expect.objectContaining({ seq, code: TOOL_DEFINITION_CHANGED })]);
        expect(refused[0]!.refusals as number).toBeGreaterThanOrEqual(1);
        expect(events.filter((e) => e.type === 'recovery.decided')).toEqual([]);
      };
      return { dir, toConfirmation, oldWorker, changedWorker, intentsOf, finish };
    }

    /** The refusals in the run's history: activity failures naming the changed definition of `tool`. */
    const refusals = async (handle: WorkflowHandle, tool: string): Promise<number> =>
      (await historyOf(handle)).filter(
        (e) => e.failureMessage?.includes(TOOL_DEFINITION_CHANGED) && e.failureMessage.includes(`${tool}@v1`),
      ).length;

    it('a write: the changed worker records and pays nothing; the pinned definition pays once, on its first attempt', async () => {
      const r = await rig('write');
      const { handle, approval } = await r.toConfirmation();
      // The deploy: only the changed build serves; the approved refund.create is refused.
      await r.changedWorker(['refund.create', 'refund.verify']);
      await decide(handle, 'approve', {}, approval);
      await expect
        .poll(() => refusals(handle, 'refund.create'), { timeout: 60_000, interval: 300 })
        .toBeGreaterThan(0);
      expect(refundRowsIn(r.dir, `${handle.workflowId}/${CREATE_SEQ}`)).toEqual([]);
      expect(await r.intentsOf(handle, CREATE_SEQ)).toEqual([]);
      // Both builds serve now: the refusals go on until a worker with the pinned definition takes it.
      await r.oldWorker();
      await r.finish(handle, CREATE_SEQ);
      expect(await r.intentsOf(handle, CREATE_SEQ)).toEqual([{ attempt: 1, worker: 'old' }]);
      expect(await r.intentsOf(handle, VERIFY_SEQ)).toEqual([{ attempt: 1, worker: 'old' }]);
      await recordFixtureIfAsked(t.client, handle.workflowId, 'refund-graph-worker-refusal-v1');
    });

    it('a read: the changed worker never runs it; the pinned definition serves it', async () => {
      const r = await rig('read');
      const { handle, approval } = await r.toConfirmation();
      // The changed build changed only refund.verify: it may serve the write, and refuses the read.
      await r.changedWorker(['refund.verify']);
      await decide(handle, 'approve', {}, approval);
      await expect
        .poll(() => refusals(handle, 'refund.verify'), { timeout: 60_000, interval: 300 })
        .toBeGreaterThan(0);
      expect(await r.intentsOf(handle, VERIFY_SEQ)).toEqual([]);
      await r.oldWorker();
      await r.finish(handle, VERIFY_SEQ);
      expect(await r.intentsOf(handle, CREATE_SEQ)).toEqual([
        { attempt: 1, worker: expect.not.stringMatching(/^old$/) as string },
      ]);
      expect(await r.intentsOf(handle, VERIFY_SEQ)).toEqual([{ attempt: 1, worker: 'old' }]);
    });
  },
);
