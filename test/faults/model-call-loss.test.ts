import { hostname } from 'node:os';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { startSlowModelServer, type SlowModelServer } from '../support/slow-model-server.js';
import { killAllWorkerProcesses } from '../support/worker-process.js';
import { createFaultRig, resultOf, type FaultRig } from './fault-rig.js';
import { historyOf } from '../support/history.js';

const USAGE = { promptTokens: 321, completionTokens: 45 };

/**
 * Scenario 1: the worker dies while a real OpenAI-compatible server is streaming the model's answer.
 * Temporal notices the lost heartbeat, retries the model activity on another worker process, and the
 * run counts the usage of one call.
 */
describe('faults: the worker dies during a model call', { timeout: 240_000 }, () => {
  let server: SlowModelServer;
  let rig: FaultRig;
  let handle: WorkflowHandle | undefined;
  beforeAll(async () => {
    server = await startSlowModelServer((index) =>
      index === 0
        ? { pieces: Array.from({ length: 600 }, (_, i) => `slow${i} `), intervalMs: 50, usage: USAGE }
        : { pieces: ['Your order ORD-1001 ', 'ships within ', 'two days.'], intervalMs: 20, usage: USAGE },
    );
    rig = await createFaultRig('model-loss', {
      compositionEnv: {
        HARNESS_MODEL_PROVIDER: 'openai',
        OPENAI_BASE_URL: server.baseUrl,
        OPENAI_API_KEY: 'test',
        HARNESS_MODEL: 'slow-model-1',
      },
    });
  });
  afterAll(async () => {
    await killAllWorkerProcesses();
    await handle?.terminate('test cleanup').catch(() => undefined);
    await rig?.close();
    await server?.close();
  });

  it('the call is retried on another worker and its usage is counted once', async () => {
    expect(rig.composition.defaultModelRoute).toBe('env');
    const first = await rig.worker();
    handle = await rig.start({
      profile: { name: 'support.answer', version: 'v1' },
      modelRoute: 'env',
      task: { message: 'When will my order ORD-1001 ship?' },
      activityTimeouts: { modelHeartbeatSeconds: 10 },
    });
    // Kill once the stream is well under way (some deltas are already in the evidence store).
    await server.streaming(0, 40);
    await first.kill();
    expect((await server.ended(0)).aborted).toBe(true);

    const second = await rig.worker();
    const result = await resultOf(handle);
    expect(result.status).toBe('succeeded');
    expect(result.output).toBe('Your order ORD-1001 ships within two days.');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]).toMatchObject({ finished: true, aborted: false });

    const view = await handle.query<RunView>('state');
    expect(view.budget).toMatchObject({
      modelCalls: 1,
      inputTokens: USAGE.promptTokens,
      outputTokens: USAGE.completionTokens,
    });

    const history = await historyOf(handle);
    const modelTasks = history.filter(
      (e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' && e.activityType === 'callModelV3',
    );
    expect(modelTasks).toHaveLength(1);
    // The attempt that completed ran on the second process. (It is usually attempt 2; it can be 3 when
    // the server handed attempt 2 to a poll the killed process had left open.)
    const retried = history.filter(
      (e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_STARTED' && (e.attempt ?? 1) > 1,
    );
    expect(retried.map((e) => e.identity)).toEqual([`${hostname()}:${second.pid}`]);

    // The evidence store holds one answer for call 1, and the live deltas of both attempts.
    const groups = await rig.composition.store.listMessageGroups(handle.workflowId);
    expect(groups.map((g) => g.seq)).toEqual([1]);
    const firstDeltas = await rig.composition.store.listModelDeltas(
      handle.workflowId,
      `${handle.workflowId}:m1:a1`,
    );
    const lastAttempt = retried[0]!.attempt!;
    const secondDeltas = await rig.composition.store.listModelDeltas(
      handle.workflowId,
      `${handle.workflowId}:m1:a${lastAttempt}`,
    );
    expect(firstDeltas.length).toBeGreaterThanOrEqual(16);
    expect(secondDeltas.length).toBeGreaterThan(0);
    const events = await rig.composition.store.listEvents(handle.workflowId);
    expect(events.filter((e) => e.type === 'model.completed')).toHaveLength(1);
    await second.kill();
  });
});
