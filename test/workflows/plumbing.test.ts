import { describe, expect, it } from 'vitest';
import * as activities from '../../bench/lib/plumbing-activities.js';
import { useTestWorker } from '../support/temporal.js';
import { testRunId } from '../support/run-id.js';

describe('plumbing workflow on the real dev server', () => {
  const worker = useTestWorker('plumbing', activities);

  it('runs one activity and completes after a signal round trip', async () => {
    const handle = await worker.temporal().client.workflow.start('plumbingWorkflow', {
      taskQueue: worker.taskQueue,
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
