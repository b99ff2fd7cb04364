import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createShowcaseComposition } from '../../apps/showcase/composition.js';
import { startAgentRun } from '../../src/client/start-run.js';
import { CONFIG_CHANGED } from '../../src/contract/failure-types.js';
import { harnessActivities } from '../../src/worker/harness-worker.js';
import type { AgentRunResult } from '../../src/workflows/index.js';
import { decide } from '../support/decisions.js';
import { refundRunInput } from '../support/harness.js';
import { historyOf } from '../support/history.js';
import { PINNED_ROUTE, pinnedRoute } from '../support/pinned-route.js';
import { TEST_PRINCIPALS, testStartSigner } from '../support/principals.js';
import { testRunId } from '../support/run-id.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { connectTestTemporal, startWorker, uniqueTaskQueue, type TestTemporal } from '../support/temporal.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';
import { refundRowsIn, waitForPause } from '../faults/fault-rig.js';

/** refund.create (the write) is the 4th invocation of the refund graph. */
const CREATE_SEQ = 4;

/**
 * The config pin (`agent-run-config-pin-v1`): a run pins the digest of exactly the configuration it
 * depends on and no other pin covers (its model route's definition), not the worker's
 * whole configuration. Build A (in this process) starts the runs on `scripted/pinned`; build B (a
 * worker process) changed that route's definition in code (another model name) and refuses every
 * call of them before anything is recorded (`worker.config_changed`), a model call as a tool call;
 * build B2 only adds tools the runs do not use and serves them.
 */
describe(
  'the config pin: a worker with another configuration of what the run uses refuses it',
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

    /** One test's stores and task queue, build A's compositions, and the worker processes of B and B2. */
    async function rig(name: string) {
      const dir = mkdtempSync(join(tmpdir(), `harness-config-pin-${name}-`));
      const taskQueue = uniqueTaskQueue(`config-pin-${name}`);
      const compose = (identity: string) =>
        createShowcaseComposition({
          storeUrl: `sqlite:${join(dir, 'evidence.db')}`,
          refundStorePath: join(dir, 'refund.db'),
          env: {},
          identity,
          principals: TEST_PRINCIPALS,
          extend: [pinnedRoute('scripted')],
        });
      const reader = await compose('reader');
      stops.push(() => reader.close());
      /** A worker of build A (identity `a`); `activities: false` takes workflow tasks and local activities only. */
      const buildA = async (activities = true) => {
        const composition = await compose('a');
        const stop = startWorker(
          await Worker.create({
            connection: t.nativeConnection,
            namespace: t.namespace,
            taskQueue,
            identity: 'a',
            workflowBundle: { codePath: inject('workflowBundlePath') },
            activities: harnessActivities(composition),
            enableNonLocalActivities: activities,
          }),
        );
        const stopAndClose = async () => {
          await stop();
          await composition.close();
        };
        stops.push(stopAndClose);
        return stopAndClose;
      };
      /** A worker process of the tests' app serving `scripted/pinned` under `model`. */
      const build = async (model: string) => {
        const p = await startWorkerProcess({ taskQueue, dir, env: { HARNESS_TEST_PINNED_ROUTE: model } });
        processes.push(p);
        return p;
      };
      const start = async () => {
        const input = refundRunInput({
          modelRoute: PINNED_ROUTE,
          task: { message: 'refund ORD-1001 please, it has not shipped', customerId: 'C1001' },
        });
        const signer = testStartSigner(input);
        return startAgentRun(t.client, {
          taskQueue,
          workflowId: testRunId(`config-pin-${name}`),
          input,
          ...(signer ? { signer } : {}),
        });
      };
      /** Who recorded the intents of invocation `seq` (one per attempt the tool spent). */
      const intentsOf = async (handle: WorkflowHandle, seq: number) =>
        ((await reader.store.getInvocation(handle.workflowId, seq))?.intents ?? []).map((i) => ({
          attempt: i.attempt,
          worker: i.workerIdentity,
        }));
      const events = (handle: WorkflowHandle) => reader.store.listEvents(handle.workflowId);
      return { dir, reader, buildA, build, start, intentsOf, events };
    }

    /** Activity failures in the run's history that are config refusals. */
    const configRefusals = async (handle: WorkflowHandle, activity?: string): Promise<number> => {
      const history = await historyOf(handle);
      return history.filter(
        (e) =>
          e.type === 'EVENT_TYPE_ACTIVITY_TASK_FAILED' &&
          e.failureMessage?.includes(CONFIG_CHANGED) &&
          (activity === undefined || e.failureMessage.includes(activity)),
      ).length;
    };

    it("a write: build B (the run's route changed) records and pays nothing; build A pays once, on its first attempt", async () => {
      const r = await rig('write');
      const stopA = await r.buildA();
      const handle = await r.start();
      const approval = await waitForPause(handle, 'awaiting_confirmation');
      await stopA();
      const b = await r.build('scripted-changed');
      await decide(handle, 'approve', {}, approval);
      await expect
        .poll(() => configRefusals(handle, 'refund.create@v1'), { timeout: 60_000, interval: 300 })
        .toBeGreaterThan(0);
      expect(refundRowsIn(r.dir, `${handle.workflowId}/${CREATE_SEQ}`)).toEqual([]);
      expect(await r.intentsOf(handle, CREATE_SEQ)).toEqual([]);
      await b.kill();
      await r.buildA();
      const result = (await handle.result()) as AgentRunResult & { output: { outcome: string } };
      expect(result.status).toBe('succeeded');
      expect(result.output.outcome).toBe('refunded');
      expect(refundRowsIn(r.dir, `${handle.workflowId}/${CREATE_SEQ}`)).toHaveLength(1);
      expect(await r.intentsOf(handle, CREATE_SEQ)).toEqual([{ attempt: 1, worker: 'a' }]);
      // The run pinned its own configuration, not the worker's whole one.
      expect(result.versions.configDigest).toMatch(/^sha256:/);
      expect(result.versions.configDigest).not.toBe(r.reader.configDigest);
      const refused = (await r.events(handle))
        .filter((e) => e.type === 'tool.worker_refused')
        .map((e) => e.data);
      expect(refused).toEqual([
        expect.objectContaining({ seq: CREATE_SEQ, tool: 'refund.create', code: CONFIG_CHANGED }),
      ]);
      expect(refused[0]!.refusals as number).toBeGreaterThanOrEqual(1);
      await recordFixtureIfAsked(t.client, handle.workflowId, 'refund-graph-config-pin-v1');
    });

    it('a model call: build B refuses it, model.worker_refused names the refusals once build A answered', async () => {
      const r = await rig('model');
      // Build A starts the run (its local activity pins it) and takes no model call.
      const stopWorkflows = await r.buildA(false);
      const handle = await r.start();
      // Build A took the first workflow task (it pinned the run); build B arrives for the model call.
      await expect
        .poll(
          async () =>
            (await historyOf(handle)).some(
              (e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' && e.activityType === 'callModelV3',
            ),
          { timeout: 60_000, interval: 200 },
        )
        .toBe(true);
      const b = await r.build('scripted-changed');
      await expect
        .poll(() => configRefusals(handle, 'model call #1'), { timeout: 60_000, interval: 300 })
        .toBeGreaterThan(0);
      await b.kill();
      await stopWorkflows();
      await r.buildA();
      const approval = await waitForPause(handle, 'awaiting_confirmation');
      await decide(handle, 'approve', {}, approval);
      const result = await handle.result();
      expect(result.status).toBe('succeeded');
      const events = await r.events(handle);
      const refused = events.filter((e) => e.type === 'model.worker_refused').map((e) => e.data);
      expect(refused).toEqual([
        expect.objectContaining({ callSeq: 1, modelRoute: PINNED_ROUTE, code: CONFIG_CHANGED }),
      ]);
      expect(refused[0]!.refusals as number).toBeGreaterThanOrEqual(1);
      expect(events.filter((e) => e.type === 'model.completed')).toHaveLength(1);
      await recordFixtureIfAsked(t.client, handle.workflowId, 'refund-graph-config-pin-model-v1');
    });

    it('build B2 only adds tools the run does not use: it serves the run', async () => {
      const r = await rig('unrelated');
      const stopA = await r.buildA();
      const handle = await r.start();
      const approval = await waitForPause(handle, 'awaiting_confirmation');
      await stopA();
      // The tests' app: the same route definition, and bench and retail tools build A does not have.
      await r.build('scripted');
      await decide(handle, 'approve', {}, approval);
      const result = (await handle.result()) as AgentRunResult & { output: { outcome: string } };
      expect(result.status).toBe('succeeded');
      expect(result.output.outcome).toBe('refunded');
      expect(await r.intentsOf(handle, CREATE_SEQ)).toEqual([
        { attempt: 1, worker: expect.not.stringMatching(/^a$/) as string },
      ]);
      expect(await configRefusals(handle)).toBe(0);
      expect((await r.events(handle)).filter((e) => e.type === 'tool.worker_refused')).toEqual([]);
    });
  },
);
