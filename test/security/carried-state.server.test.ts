import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createInitialRunState } from '../../src/workflows/runner/initial-state.js';
import { DEFAULT_LIMITS } from '../../src/workflows/runner/budget.js';
import type { CarriedRun } from '../../src/workflows/temporal/carried-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { createHarnessWorker } from '../../src/worker/harness-worker.js';
import {
  createHarnessFixture,
  refundRunInput,
  waitForState,
  type HarnessFixture,
} from '../support/harness.js';
import { startWorker, uniqueTaskQueue } from '../support/temporal.js';
import { testRunId } from '../support/run-id.js';
import { callAt, textAt } from '../workflows/runner-support.js';

/**
 * Forged carried state on every start path (issue 35, docs/security.md "Start paths"). The forged state
 * is what an attacker would hand in: a fresh refund.assistant run pinned to `allow_all@v1` (no approval
 * for a refund) on a route whose model asks for refund.create at once. Had a run taken it, it would pay.
 */

const PAY_ROUTE = 'scripted/pay-at-once';
const PAY_SCRIPT = {
  entries: [
    callAt(0, 'refund.create', {
      orderId: 'ORD-1001',
      amountCents: 100,
      reason: 'not shipped after 72 hours',
    }),
    textAt(1, 'paid'),
  ],
};

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;

function failureIn(history: History): { type?: string; message?: string } | undefined {
  const last = history.events?.at(-1)?.workflowExecutionFailedEventAttributes?.failure;
  if (!last) return undefined;
  return { type: last.applicationFailureInfo?.type ?? undefined, message: last.message ?? undefined };
}

function activitiesIn(history: History): number {
  return (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes).length;
}

describe('carried state comes only from the run itself: forged state is refused on every start path', () => {
  let h: HarnessFixture;
  let forgedFor: (workflowId: string) => CarriedRun;

  beforeAll(async () => {
    h = await createHarnessFixture('carried-attack', { scripts: { [PAY_ROUTE]: PAY_SCRIPT } });
    // What an attacker copies from a run of their own: the versions the worker pins.
    const probe = await h.start({
      profile: { name: 'refund.assistant', version: 'v1' },
      modelRoute: PAY_ROUTE,
      task: { message: 'Refund ORD-1001' },
    });
    const view = await waitForState(probe, (v) => v.versions.toolRegistryDigest !== undefined);
    await probe.terminate('probe done');
    forgedFor = (workflowId) => ({
      schemaVersion: 1,
      state: createInitialRunState({
        runId: workflowId,
        versions: { ...(view.versions as RunView['versions'] & { policy: string }), policy: 'allow_all@v1' },
        limits: DEFAULT_LIMITS,
        startedAt: new Date().toISOString(),
      }),
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const input = () =>
    refundRunInput({
      profile: { name: 'refund.assistant', version: 'v1' },
      modelRoute: PAY_ROUTE,
      task: { message: 'Refund ORD-1001' },
    });

  /** Every refund the business store holds: none may exist after an attack. */
  function refundsPaid(): number {
    const db = new Database(join(h.dir, 'refund.db'), { readonly: true });
    try {
      return db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM refunds').get()!.n;
    } finally {
      db.close();
    }
  }

  /** The histories of every run under `workflowId`, oldest first. */
  async function runsOf(workflowId: string): Promise<History[]> {
    const runs: { started: number; runId: string }[] = [];
    for await (const w of h.t.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
      runs.push({ started: w.startTime.getTime(), runId: w.runId });
    runs.sort((a, b) => a.started - b.started);
    return Promise.all(runs.map((r) => h.t.client.workflow.getHandle(workflowId, r.runId).fetchHistory()));
  }

  async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  function expectRefused(history: History, type: string, message: string): void {
    expect(failureIn(history)).toMatchObject({ type, message: expect.stringContaining(message) as string });
    expect(activitiesIn(history)).toBe(0);
  }

  it('a direct start and a signal-with-start: refused, nothing paid', async () => {
    const direct = testRunId('forged-direct');
    const handle = await h.t.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId: direct,
      args: [input(), forgedFor(direct)],
    });
    await expect(handle.result()).rejects.toThrow();
    expectRefused(await handle.fetchHistory(), 'run.carried_state_refused', "run's own continue-as-new");

    const withSignal = testRunId('forged-signal-with-start');
    const signalled = await h.t.client.workflow.signalWithStart('agentRun', {
      taskQueue: h.taskQueue,
      workflowId: withSignal,
      args: [input(), forgedFor(withSignal)],
      signal: 'approve',
      signalArgs: [{ actionId: 'x', actor: 'mallory' }],
    });
    await expect(signalled.result()).rejects.toThrow();
    expectRefused(await signalled.fetchHistory(), 'run.carried_state_refused', "run's own continue-as-new");
    expect(refundsPaid()).toBe(0);
  });

  it('a cron start: every cron run refuses the forged state (the later ones as a cron run), nothing paid', async () => {
    const workflowId = testRunId('forged-cron');
    const handle = await h.t.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [input(), forgedFor(workflowId)],
      cronSchedule: '@every 2s',
    });
    try {
      const runs = await until('two cron runs to end', async () => {
        const all = await runsOf(workflowId);
        const ended = all.filter((r) => failureIn(r) !== undefined);
        return ended.length >= 2 ? ended : undefined;
      });
      expectRefused(runs[0]!, 'run.carried_state_refused', "run's own continue-as-new");
      // The second cron run is continued from the first, with the starter's arguments again.
      expect(
        runs[1]!.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId,
      ).toBeTruthy();
      expectRefused(runs[1]!, 'run.carried_state_refused', 'cron run');
    } finally {
      await handle.terminate('test done');
    }
    expect(refundsPaid()).toBe(0);
  });

  it('a cron start without carried state is refused too: recurring runs are started by a Schedule', async () => {
    const workflowId = testRunId('plain-cron');
    const handle = await h.t.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [input()],
      cronSchedule: '@every 2s',
    });
    try {
      const first = await until('the first cron run to end', async () => {
        const ended = (await runsOf(workflowId)).filter((r) => failureIn(r) !== undefined);
        return ended[0];
      });
      expectRefused(first, 'run.cron_unsupported', 'Temporal Schedule');
    } finally {
      await handle.terminate('test done');
    }
  });

  it('a workflow retry (the first attempt timed out with no worker): refused, nothing paid', async () => {
    const taskQueue = uniqueTaskQueue('forged-retry');
    const workflowId = testRunId('forged-retry');
    const handle = await h.t.client.workflow.start('agentRun', {
      taskQueue,
      workflowId,
      args: [input(), forgedFor(workflowId)],
      workflowRunTimeout: '3s',
      retry: { maximumAttempts: 2, initialInterval: '1s' },
    });
    // No worker until the first attempt has timed out: the retry is what runs.
    await new Promise((r) => setTimeout(r, 4_500));
    const stop = startWorker(
      await createHarnessWorker({
        connection: h.t.nativeConnection,
        namespace: h.t.namespace,
        taskQueue,
        composition: h.composition,
        workflowBundle: { codePath: inject('workflowBundlePath') },
      }),
    );
    try {
      const runs = await until('the retry to end', async () => {
        const all = await runsOf(workflowId);
        const refused = all.find((r) => failureIn(r)?.type !== undefined);
        return refused ? all : undefined;
      });
      const retry = runs.find((r) => failureIn(r)?.type !== undefined)!;
      expect(retry.events?.[0]?.workflowExecutionStartedEventAttributes?.attempt).toBe(2);
      expectRefused(retry, 'run.carried_state_refused', 'workflow retry');
      await expect(handle.result()).rejects.toThrow();
    } finally {
      await stop();
    }
    expect(refundsPaid()).toBe(0);
  });

  it('a reset of a refused run refuses again, nothing paid', async () => {
    const workflowId = testRunId('forged-reset');
    const handle = await h.t.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [input(), forgedFor(workflowId)],
    });
    await expect(handle.result()).rejects.toThrow();
    const history = await handle.fetchHistory();
    const taskDone = history.events!.find((e) => e.workflowTaskCompletedEventAttributes)!;
    const reset = await h.t.client.workflowService.resetWorkflowExecution({
      namespace: h.t.namespace,
      workflowExecution: { workflowId, runId: handle.firstExecutionRunId },
      reason: 'attack',
      workflowTaskFinishEventId: taskDone.eventId,
      requestId: testRunId('reset-request'),
    });
    const resetRun = h.t.client.workflow.getHandle(workflowId, reset.runId);
    await expect(resetRun.result()).rejects.toThrow();
    expectRefused(await resetRun.fetchHistory(), 'run.carried_state_refused', "run's own continue-as-new");
    expect(refundsPaid()).toBe(0);
  });

  it('a Temporal Schedule: the scheduled run refuses the forged state, nothing paid', async () => {
    const scheduleId = testRunId('forged-schedule');
    const schedule = await h.t.client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1 hour' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'agentRun',
        taskQueue: h.taskQueue,
        workflowId: `${scheduleId}-run`,
        args: [input(), forgedFor(`${scheduleId}-run`)],
      },
    });
    try {
      await schedule.trigger();
      const started = await until('the scheduled run', async () => {
        const d = await schedule.describe();
        return d.info.recentActions[0]?.action.workflow;
      });
      const run = h.t.client.workflow.getHandle(started.workflowId, started.firstExecutionRunId);
      await expect(run.result()).rejects.toThrow();
      expectRefused(await run.fetchHistory(), 'run.carried_state_refused', "run's own continue-as-new");
    } finally {
      await schedule.delete();
    }
    expect(refundsPaid()).toBe(0);
  });
});
