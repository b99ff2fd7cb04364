import { join } from 'node:path';
import Database from 'better-sqlite3';
import { MONTHS, type ScheduleHandle, type ScheduleSpec, type WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signStart } from '../../src/client/decisions/sign-start.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import {
  createHarnessFixture,
  refundRunInput,
  waitForState,
  type HarnessFixture,
} from '../support/harness.js';
import { TEST_KEYS } from '../support/principals.js';
import { testRunId } from '../support/run-id.js';

/**
 * Start tokens on runs a Temporal Schedule starts (docs/authorization.md, "Who a run is for"). A
 * start token is bound to one workflow id (`wf`) and judged at the time the server accepted the
 * start (`agent-run-start-token-accepted-v1`). A Schedule starts its runs under its action's
 * `workflowId` plus `-<the action's nominal time, RFC 3339, to the second>`, at the server's action
 * time. What an attacker holding one valid token can and cannot do with a Schedule:
 * - a token of a one-off start (or one signed for the Schedule's own `workflowId`) never matches a
 *   scheduled id: refused `start.wrong_workflow`, nothing paid;
 * - a token signed for the exact scheduled id (a nominal time is predictable) but expired when the
 *   Schedule fires is refused `start.token_expired`, though the Schedule was made while it was fresh;
 * - a token signed for the exact scheduled id and still fresh starts the run as its signer, and
 *   starts it again under the same id (a backfill of the same nominal time, or a plain start of that
 *   id) whenever the previous run has closed, until the token expires: nothing remembers a start
 *   token's `jti`; it proves who, not how many. Such a later run does nothing today only because the
 *   evidence store keeps the first run's records under that id (`store.conflict`).
 */

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;

/** A refund of the customer's own order: a verified C1001 gets as far as the approval, no further. */
const INPUT = refundRunInput({ task: { message: 'refund ORD-1001 please' }, userId: 'C1001' });

/** How a Schedule names a run: its action's workflow id, `-`, the nominal time to the second. */
function scheduledId(workflowId: string, nominal: Date): string {
  return `${workflowId}-${nominal.toISOString().replace(/\.\d{3}Z$/, 'Z')}`;
}

/** The start of the previous whole hour: a nominal time of an `every 1 hour` spec, in the past. */
function lastHour(): Date {
  const hour = 3_600_000;
  return new Date(Math.floor(Date.now() / hour) * hour - hour);
}

/** The type and message of the workflow's failure, when its last event is one. */
function failureIn(history: History): { type?: string; message?: string } | undefined {
  const last = history.events?.at(-1)?.workflowExecutionFailedEventAttributes?.failure;
  if (!last) return undefined;
  return { type: last.applicationFailureInfo?.type ?? undefined, message: last.message ?? undefined };
}

/** The activity types the history scheduled, in order. */
function activitiesIn(history: History): string[] {
  return (history.events ?? []).flatMap((e) => {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
}

/** Poll `probe` until it returns a value. @throws Error naming `what` after `timeoutMs`. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('start tokens on runs a Temporal Schedule starts', { timeout: 180_000 }, () => {
  let h: HarnessFixture;
  const schedules: ScheduleHandle[] = [];
  beforeAll(async () => {
    h = await createHarnessFixture('schedule-start-token');
  });
  afterAll(async () => {
    for (const s of schedules) await s.delete().catch(() => undefined);
    await h?.close();
  });

  /** A Schedule (every hour, so it fires only when told) whose action starts `agentRun` with `args`. */
  async function scheduleOf(
    workflowId: string,
    args: unknown[],
    spec: ScheduleSpec = { intervals: [{ every: '1 hour' }] },
  ): Promise<ScheduleHandle> {
    const schedule = await h.t.client.schedule.create({
      scheduleId: testRunId('schedule-token'),
      spec,
      action: { type: 'startWorkflow', workflowType: 'agentRun', taskQueue: h.taskQueue, workflowId, args },
    });
    schedules.push(schedule);
    return schedule;
  }

  /** The runs the Schedule has started (handle and run id), oldest first, once there are `n`. */
  async function scheduledRuns(
    schedule: ScheduleHandle,
    n: number,
    timeoutMs?: number,
  ): Promise<{ run: WorkflowHandle; runId: string }[]> {
    const actions = await until(
      `${n} scheduled run(s)`,
      async () => {
        const recent = (await schedule.describe()).info.recentActions;
        return recent.length >= n ? recent : undefined;
      },
      timeoutMs,
    );
    return actions.map(({ action: { workflow } }) => ({
      run: h.t.client.workflow.getHandle(workflow.workflowId, workflow.firstExecutionRunId, {
        firstExecutionRunId: workflow.firstExecutionRunId,
      }),
      runId: workflow.firstExecutionRunId,
    }));
  }

  /** Every refund the business store holds. */
  function refundsPaid(): number {
    const db = new Database(join(h.dir, 'refund.db'), { readonly: true });
    try {
      return db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM refunds').get()!.n;
    } finally {
      db.close();
    }
  }

  /** The run failed `run.start_token_refused` with `code`, and never called a tool. */
  async function expectRefused(run: WorkflowHandle, code: string): Promise<void> {
    await expect(run.result()).rejects.toThrow();
    const history = await run.fetchHistory();
    expect(failureIn(history)).toMatchObject({
      type: 'run.start_token_refused',
      message: expect.stringContaining(code) as string,
    });
    expect(activitiesIn(history).filter((a) => a.startsWith('runTool'))).toEqual([]);
  }

  /** The run started as the verified C1001: its `state` view names them. */
  async function expectStartedAsCustomer(run: WorkflowHandle): Promise<RunView> {
    const view = await waitForState(run, () => true);
    expect(view).toMatchObject({ userId: 'C1001', verified: true });
    return view;
  }

  it('a token of a one-off start, put into a Schedule of that workflow id: refused start.wrong_workflow, nothing paid', async () => {
    // The legitimate one-off start: its token is fresh and verifies for its own id.
    const oneOff = testRunId('one-off');
    const signed = signStart({ key: TEST_KEYS.customer }, oneOff, INPUT);
    const legit = await h.t.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId: oneOff,
      args: [signed],
    });
    await expectStartedAsCustomer(legit);
    await waitForState(legit, (v) => v.status === 'awaiting_confirmation');
    await legit.terminate('test done');

    // The same signed input (taken from its history or a log) in a Schedule of that workflow id.
    const schedule = await scheduleOf(oneOff, [signed]);
    await schedule.trigger();
    const { run } = (await scheduledRuns(schedule, 1))[0]!;
    expect(run.workflowId).toMatch(new RegExp(`^${oneOff}-\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`));
    await expectRefused(run, 'start.wrong_workflow');
    expect(refundsPaid()).toBe(0);
  });

  it('a token signed for the scheduled id that expired before the Schedule fires: refused start.token_expired, nothing paid', async () => {
    // The Schedule fires on its own spec, once, at a second 8 s from now; the token lives 3 s.
    const base = testRunId('expiring');
    const fireAt = new Date(Math.ceil((Date.now() + 8_000) / 1000) * 1000);
    const signed = signStart({ key: TEST_KEYS.customer, ttlSeconds: 3 }, scheduledId(base, fireAt), INPUT);
    const schedule = await scheduleOf(base, [signed], {
      calendars: [
        {
          year: fireAt.getUTCFullYear(),
          month: MONTHS[fireAt.getUTCMonth()]!,
          dayOfMonth: fireAt.getUTCDate(),
          hour: fireAt.getUTCHours(),
          minute: fireAt.getUTCMinutes(),
          second: fireAt.getUTCSeconds(),
        },
      ],
    });
    const { run } = (await scheduledRuns(schedule, 1, 60_000))[0]!;
    // The id is the one the token names: the refusal is about time, not the binding.
    expect(run.workflowId).toBe(scheduledId(base, fireAt));
    await expectRefused(run, 'start.token_expired');
    expect(refundsPaid()).toBe(0);
  });

  it('a fresh token signed for the scheduled id: each run under that id starts as its signer (who, not how many)', async () => {
    // A nominal time is predictable, so the signer can sign for the id a Schedule will give.
    const base = testRunId('predicted');
    const nominal = lastHour();
    const workflowId = scheduledId(base, nominal);
    const signed = signStart({ key: TEST_KEYS.customer }, workflowId, INPUT);
    const schedule = await scheduleOf(base, [signed]);
    const backfill = () =>
      schedule.backfill({
        start: new Date(nominal.getTime() - 1_000),
        end: new Date(nominal.getTime() + 1_000),
        overlap: 'ALLOW_ALL',
      });

    await backfill();
    const first = (await scheduledRuns(schedule, 1))[0]!;
    expect(first.run.workflowId).toBe(workflowId);
    await expectStartedAsCustomer(first.run);
    await waitForState(first.run, (v) => v.status === 'awaiting_confirmation');
    await first.run.terminate('test done');

    // The same nominal time again, after the first run closed: the same id, the same token, a new
    // run, and it too starts as C1001. It gets no further: the evidence store keys a run's records by
    // its workflow id and keeps the first run's, so this run's first event flush conflicts
    // (`store.conflict`) and, once the model call's retries are spent, the run's view says `failed`
    // with no tool call. That is the store's doing, not a check of the token.
    await backfill();
    const second = (await scheduledRuns(schedule, 2))[1]!;
    expect(second.run.workflowId).toBe(workflowId);
    expect(second.runId).not.toBe(first.runId);
    await expectStartedAsCustomer(second.run);
    const ended = await waitForState(second.run, (v) => v.status === 'failed', 150_000);
    expect(ended.terminalReason?.message).toContain('already exists with different content');
    expect(ended.invocations).toEqual([]);
    // Its last event flush conflicts too, for good: the execution ends failed, nothing to terminate
    // (test/workflows/reused-workflow-id.test.ts).
    await expect(second.run.result()).rejects.toThrow();
    expect((await second.run.describe()).status.name).toBe('FAILED');

    // Not the Schedule's doing: a plain start of that id with the same args starts as C1001 too.
    const third = await h.t.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [signed],
    });
    expect(third.firstExecutionRunId).not.toBe(second.runId);
    await expectStartedAsCustomer(third);
    await third.terminate('test done');

    // Another nominal time (a trigger now) gives another id: the token does not cover it.
    await schedule.trigger();
    const other = (await scheduledRuns(schedule, 3))[2]!;
    expect(other.run.workflowId).not.toBe(workflowId);
    await expectRefused(other.run, 'start.wrong_workflow');
    expect(refundsPaid()).toBe(0);
  });
});
