import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as activities from '../../bench/lib/plumbing-activities.js';
import {
  connectTestTemporal,
  createTestWorker,
  startWorker,
  uniqueTaskQueue,
  type TestTemporal,
} from '../support/temporal.js';
import { testRunId } from '../support/run-id.js';

describe('plumbing workflow on the real dev server', () => {
  let t: TestTemporal;
  let stop: () => Promise<void>;
  const taskQueue = uniqueTaskQueue('plumbing');

  beforeAll(async () => {
    t = await connectTestTemporal();
    stop = startWorker(await createTestWorker(t, { taskQueue, activities }));
  });
  afterAll(async () => {
    await stop?.();
    await t?.close();
  });

  it('runs one activity and completes after a signal round trip', async () => {
    const handle = await t.client.workflow.start('plumbingWorkflow', {
      taskQueue,
      workflowId: testRunId('plumbing'),
      args: [{ name: 'harness' }],
    });
    await handle.signal('proceed', { note: 'go' });
    await expect(handle.result()).resolves.toEqual({ greeting: 'hello, harness', note: 'go' });
    const history = await handle.fetchHistory();
    const types = (history.events ?? []).map((e) => e.eventType);
    expect(types).toContain(10 /* ACTIVITY_TASK_SCHEDULED */);
    expect(types).toContain(26 /* WORKFLOW_EXECUTION_SIGNALED */);
  });
});
