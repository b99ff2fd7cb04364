import { hostname } from 'node:os';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCH_TASK_MESSAGE, benchRoute } from '../../apps/bench/bench-script.js';
import { startAgentRun } from '../../src/client/start-run.js';
import type { AgentRunInput } from '../../src/contract/run-input.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { TEST_APP_BENCH_SIZES } from '../support/test-app.js';
import { killAllWorkerProcesses } from '../support/worker-process.js';
import { createFaultRig, type FaultRig } from './fault-rig.js';
import { testRunId } from '../support/run-id.js';

const EventType = temporal.api.enums.v1.EventType;
const STEPS = TEST_APP_BENCH_SIZES[0]!;

/** A bench run: STEPS model calls and STEPS tool calls of `bench.noop`, continuing as new every ~40 events. */
function benchInput(): AgentRunInput {
  return {
    schemaVersion: 1,
    profile: { name: 'bench.steps', version: 'v1' },
    modelRoute: benchRoute(STEPS),
    task: { message: BENCH_TASK_MESSAGE },
    continueAsNewAfterEvents: 40,
    // a killed worker's activity is noticed in seconds (the model call's default is 120 s)
    activityTimeouts: { writeHeartbeatSeconds: 5, readHeartbeatSeconds: 5, modelHeartbeatSeconds: 5 },
    budget: { maxSteps: 1000, maxModelCalls: 1000, maxToolCalls: 1000, maxStepsWithoutProgress: 1000 },
  };
}

interface Execution {
  readonly workers: Set<string>;
  readonly taskFailures: string[];
  /** The failure types of its failed activities (a worker's refusal of a call is one). */
  readonly activityFailures: string[];
}

/** Every execution of a workflow id (all continue-as-new generations): who ran its tasks, what failed. */
async function executionsOf(rig: FaultRig, workflowId: string): Promise<Execution[]> {
  const out: Execution[] = [];
  for await (const w of rig.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const history = await rig.client.workflow.getHandle(workflowId, w.runId).fetchHistory();
    const workers = new Set<string>();
    const taskFailures: string[] = [];
    const activityFailures: string[] = [];
    for (const e of history.events ?? []) {
      if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED)
        workers.add(e.workflowTaskStartedEventAttributes?.identity ?? '');
      if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
        workers.add(e.activityTaskStartedEventAttributes?.identity ?? '');
      if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)
        taskFailures.push(e.workflowTaskFailedEventAttributes?.failure?.message ?? '');
      if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED)
        activityFailures.push(
          e.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type ?? '',
        );
    }
    out.push({ workers, taskFailures, activityFailures });
  }
  return out;
}

async function toolCalls(handle: WorkflowHandle): Promise<number> {
  const view = await handle.query<RunView>('state').catch(() => undefined);
  return view?.budget.toolCalls ?? 0;
}

/**
 * Rolling deploys (docs/rolling-deploys.md): a run pins the definitions of its profile's tools, not
 * the worker's whole registry. Real worker processes of the tests' app; the "next build" has an extra
 * tool and a new version of a tool the profile does not use.
 */
describe('rolling deploy: per-tool pins', { timeout: 300_000 }, () => {
  let rig: FaultRig;
  const handles: WorkflowHandle[] = [];
  beforeAll(async () => {
    rig = await createFaultRig('rolling-deploy');
  });
  afterAll(async () => {
    await killAllWorkerProcesses();
    for (const h of handles) await h.terminate('test cleanup').catch(() => undefined);
    await rig?.close();
  });

  it('an old and a new worker serve the same in-flight runs across continue-as-new', async () => {
    const old = await rig.worker();
    const runs = await Promise.all(
      [1, 2, 3].map((i) =>
        startAgentRun(rig.client, {
          taskQueue: rig.taskQueue,
          workflowId: `rolling-${Date.now()}-${i}`,
          input: benchInput(),
        }),
      ),
    );
    handles.push(...runs);
    // Every run is under way on the old build before the new one joins.
    for (const h of runs) {
      const deadline = Date.now() + 60_000;
      while ((await toolCalls(h)) < 3) {
        if (Date.now() > deadline) throw new Error(`${h.workflowId} did not start on the old worker`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const next = await rig.worker({ env: { HARNESS_TEST_TOOLS: 'rollout' } });
    // Both poll for a while, then the old build is gone (SIGKILL, as a crashed or drained host).
    await new Promise((r) => setTimeout(r, 1500));
    await old.kill();

    const oldId = `${hostname()}:${old.pid}`;
    const nextId = `${hostname()}:${next.pid}`;
    const seen = new Set<string>();
    for (const h of runs) {
      const result = (await h.result()) as { status: string; output: unknown };
      expect(result.status, h.workflowId).toBe('succeeded');
      const view = await h.query<RunView>('state');
      expect(view.budget.toolCalls).toBe(STEPS);
      const executions = await executionsOf(rig, h.workflowId);
      expect(executions.length, 'continued as new').toBeGreaterThan(1);
      expect(executions.flatMap((e) => e.taskFailures)).toEqual([]);
      for (const e of executions) for (const w of e.workers) seen.add(w);
    }
    expect(seen.has(oldId), 'the old worker served tasks').toBe(true);
    expect(seen.has(nextId), 'the new worker served tasks').toBe(true);
    await next.kill();
  });

  it('a worker with another definition of a pinned tool does not take the run: a failed task, never a failed run', async () => {
    const t0 = Date.now();
    const standard = await rig.worker();
    const handle = await startAgentRun(rig.client, {
      taskQueue: rig.taskQueue,
      workflowId: testRunId('rolling-changed'),
      input: benchInput(),
    });
    handles.push(handle);
    // The run pins the standard definitions on the standard worker...
    const deadline = Date.now() + 60_000;
    while ((await toolCalls(handle)) < 2) {
      if (Date.now() > deadline) throw new Error('the run did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    // ...then only a worker with another definition of bench.noop@v1 is left. The standard worker goes
    // first: the run must not race ahead to its last generation while the changed one starts.
    console.error(`[rolling-deploy] started after ${Date.now() - t0} ms`);
    await standard.kill();
    const changed = await rig.worker({ env: { HARNESS_TEST_TOOLS: 'changed-bench' } });
    // At the next generation's start the changed worker checks the pin and refuses the task (or,
    // inside a generation, refuses the next tool call, which the run schedules again). History
    // keeps only a task's first failed attempt (later ones are transient), and that attempt may have
    // been the killed worker's (a timeout), so the refusal is read from the history or from the
    // changed worker's own log of the failed task. The killed worker's workflow task is noticed
    // after the run's 30 s task timeout, its activity after 5 s.
    const refusal = Date.now() + 120_000;
    let refused = '';
    while (!refused) {
      if (Date.now() > refusal) {
        const latest = await rig.client.workflow.getHandle(handle.workflowId).fetchHistory();
        const last = (latest.events ?? []).slice(-5).map((e) => EventType[e.eventType ?? 0]);
        throw new Error(
          `no refused workflow task was seen; the last events: ${last.join(', ')}; generations ${(await executionsOf(rig, handle.workflowId)).length}`,
        );
      }
      const executions = await executionsOf(rig, handle.workflowId);
      const failures = executions.flatMap((e) => e.taskFailures);
      const pending = (await handle.describe()).raw.pendingWorkflowTask;
      // Killed inside a generation, the run's next tool call is what the changed worker refuses
      // (agent-run-worker-refusal-v1: a non-retryable activity failure; the run schedules it again).
      const refusedCall = executions
        .flatMap((e) => e.activityFailures)
        .find((f) => f === 'worker.tool_definition_changed');
      refused =
        failures.find((f) => f.includes('worker.tools_unavailable')) ??
        refusedCall ??
        (changed.output().includes('worker.tools_unavailable')
          ? 'worker log'
          : // only the changed worker polls: a task retried again and again is one it keeps refusing
            (pending?.attempt ?? 0) >= 3
            ? `task attempt ${pending?.attempt}`
            : '');
      await new Promise((r) => setTimeout(r, 250));
    }
    console.error(`[rolling-deploy] refusal after ${Date.now() - t0} ms, seen in: ${refused.slice(0, 200)}`);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    // A worker with the pinned definitions takes over and the run ends as it would have.
    const fixed = await rig.worker();
    await changed.kill();
    const result = (await handle.result()) as { status: string };
    expect(result.status).toBe('succeeded');
    console.error(`[rolling-deploy] completed after ${Date.now() - t0} ms`);
    expect((await handle.query<RunView>('state')).budget.toolCalls).toBe(STEPS);
    await fixed.kill();
  });
});
