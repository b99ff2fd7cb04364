import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShowcaseComposition } from '../../apps/showcase/composition.js';
import type { RefundComposition } from '../../apps/refund/composition.js';
import { startAgentRun } from '../../src/client/start-run.js';
import { ScriptedProvider } from '../../src/activities/model/scripted-provider.js';
import { harnessActivities } from '../../src/worker/harness-worker.js';
import { historyEventTypes, refundRunInput } from '../support/harness.js';
import { TEST_PRINCIPALS } from '../support/principals.js';
import { testRunId } from '../support/run-id.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';
import {
  connectTestTemporal,
  createTestWorker,
  startWorker,
  uniqueTaskQueue,
  type TestTemporal,
} from '../support/temporal.js';
import { endlessSearch, scheduledActivities } from './runner-support.js';

/**
 * The run's deadline fires in the same workflow task as a model call's result: the two continuations
 * of that activation are the deadline (one tick after its timer, it cancels the run's scope) and the
 * Runner (its port's `then`, then its own, src/workflows/runner/call-promise.ts). The deadline cancels
 * first, so the tool call the model proposed is never scheduled, the run ends on the deadline, and
 * the task completes without a nondeterminism.
 *
 * To put both events in one task: the workflow worker stops while the model call runs on a worker
 * of activities only; the call completes, the deadline passes, and then a workflow worker starts.
 */
describe('a deadline that fires with an activity result in one workflow task (real server)', () => {
  let t: TestTemporal;
  let composition: RefundComposition;
  let openGate: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  let modelCalls = 0;

  beforeAll(async () => {
    t = await connectTestTemporal();
    const dir = mkdtempSync(join(tmpdir(), 'harness-deadline-with-result-'));
    composition = await createShowcaseComposition({
      storeUrl: `sqlite:${join(dir, 'evidence.db')}`,
      refundStorePath: join(dir, 'refund.db'),
      env: {},
      principals: TEST_PRINCIPALS,
    });
    // The first model call waits for the test; it then proposes a tool call.
    const scripted = new ScriptedProvider(endlessSearch(5));
    composition.models.register(
      'scripted/gated',
      {
        name: 'scripted',
        stream: async (req, opts) => {
          modelCalls += 1;
          await gate;
          return scripted.stream(req, opts);
        },
      },
      'scripted',
    );
  });
  afterAll(async () => {
    openGate();
    await composition?.close();
    await t?.close();
  });

  it('ends the run on the deadline and never schedules the proposed tool call', async () => {
    const taskQueue = uniqueTaskQueue('deadline-with-result');
    const activities = harnessActivities(composition);
    // Workflows and their local activities; the model and tool calls run on the other worker.
    const workflowWorker = () =>
      createTestWorker(t, {
        taskQueue,
        activities,
        enableNonLocalActivities: false,
        stickyQueueScheduleToStartTimeout: '1s',
      });
    const stopActivities = startWorker(
      await Worker.create({
        connection: t.nativeConnection,
        namespace: t.namespace,
        taskQueue,
        activities,
      }),
    );
    try {
      const stopFirst = startWorker(await workflowWorker());
      const handle = await startAgentRun(t.client, {
        taskQueue,
        workflowId: testRunId('deadline-with-result'),
        input: refundRunInput({
          profile: { name: 'support.answer', version: 'v1' },
          modelRoute: 'scripted/gated',
          task: { message: 'search the refund policy' },
          budget: { deadlineSeconds: 4 },
        }),
      });
      const startedAt = Date.now();
      while (modelCalls === 0) await new Promise((r) => setTimeout(r, 50));
      await stopFirst();
      openGate();
      // Past the deadline, with the model's result already in the history: one task holds both.
      await new Promise((r) => setTimeout(r, Math.max(0, startedAt + 5_500 - Date.now())));
      const stopSecond = startWorker(await workflowWorker());
      try {
        const result = await handle.result();
        expect(result.status).toBe('budget_exhausted');
        expect(result.terminalReason?.code).toBe('budget.wall_clock_deadline');
        const types = await historyEventTypes(handle);
        const completed = types.indexOf('EVENT_TYPE_ACTIVITY_TASK_COMPLETED');
        const fired = types.indexOf('EVENT_TYPE_TIMER_FIRED');
        expect(completed).toBeGreaterThan(0);
        expect(fired).toBeGreaterThan(completed);
        // No workflow task started between the result and the deadline: one task saw both.
        expect(types.slice(completed, fired)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_STARTED');
        expect((await scheduledActivities(handle)).map((a) => a.type)).toEqual(['callModelV3']);
        expect(types).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
        const events = await composition.store.listEvents(handle.workflowId);
        expect(events.filter((e) => e.type === 'tool.completed')).toEqual([]);
        expect(events.at(-1)?.data).toMatchObject({ status: 'budget_exhausted' });
        // In the replay corpus: a change to the ticks of either continuation must replay it.
        await recordFixtureIfAsked(t.client, handle.workflowId, 'support-deadline-with-result-v1');
      } finally {
        await stopSecond();
      }
    } finally {
      await stopActivities();
    }
  });
});
