import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REFUSAL_EVENTS_PER_WAIT } from '../../src/workflows/runner/human-gate.js';
import {
  MIN_WAIT_HISTORY_BOUND_BYTES,
  WAIT_HISTORY_BOUND_BYTES,
} from '../../src/contract/wait-history-bound.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { waitForPause } from '../faults/fault-rig.js';
import { approvePending, decide } from '../support/decisions.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { TEST_KEYS } from '../support/principals.js';

const FLOOD = 1_000;
/** Signals sent at once: 1.6 MB, under the 2 MB of signals Temporal buffers during one workflow task. */
const BATCH = 25;
/** Each value is 64 KiB: twice the decision payload bound, so every one is refused (`signal.too_large`). */
const VALUE = 'x'.repeat(64 * 1024);

interface Execution {
  readonly runId: string;
  readonly types: string[];
  readonly failedCauses: string[];
  readonly historySizeBytes: number;
}

/** One execution's events, in small pages (a page of 64 KiB signals would pass gRPC's 4 MB limit). */
async function historyOf(
  client: Client,
  workflowId: string,
  runId: string,
): Promise<temporal.api.history.v1.IHistoryEvent[]> {
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId, runId },
      maximumPageSize: 16,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return events;
}

/** Wait until the run's latest execution has no workflow task scheduled or running, or has closed. */
async function untilIdle(handle: WorkflowHandle): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const d = await handle.describe();
    if (d.status.name !== 'RUNNING' || d.raw.pendingWorkflowTask == null) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the run never became idle');
}

/** Every execution of the workflow, first to last, following continue-as-new. */
async function executions(client: Client, workflowId: string, firstRunId: string): Promise<Execution[]> {
  const proto = (await import('@temporalio/proto')).default.temporal;
  const out: Execution[] = [];
  let runId: string | undefined = firstRunId;
  while (runId) {
    const handle: WorkflowHandle = client.workflow.getHandle(workflowId, runId);
    const events = await historyOf(client, workflowId, runId);
    const info = (await handle.describe()).raw.workflowExecutionInfo;
    out.push({
      runId,
      types: events.map((e) => proto.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType)),
      failedCauses: events
        .filter((e) => e.workflowTaskFailedEventAttributes)
        .map(
          (e) =>
            proto.api.enums.v1.WorkflowTaskFailedCause[e.workflowTaskFailedEventAttributes!.cause ?? 0] ??
            'unknown',
        ),
      historySizeBytes: Number(info?.historySizeBytes ?? 0),
    });
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return out;
}

/**
 * Issue 16: a run waiting for input gets 1,000 `provideInput` signals of 64 KiB in a burst. Temporal
 * records each before the run sees it (64 MB in all, over the server's 50 MB history limit), so the
 * run moves its wait to a new history each time the history reaches WAIT_HISTORY_BOUND_BYTES, with the
 * same action. It is never terminated by the server, no workflow task fails on a deadline, the
 * refusals are recorded (bounded per generation), and a valid answer afterwards completes the run.
 */
describe('1,000 provideInput signals of 64 KiB to one waiting run', { timeout: 240_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('input-flood');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the run keeps waiting across new histories and completes as it would have', async () => {
    const started = await h.start({ task: { message: 'refund please', customerId: 'C1001' } });
    const handle = h.t.client.workflow.getHandle(started.workflowId);
    const waiting = await waitForPause(handle, 'awaiting_input');
    expect(waiting.pendingAction).toMatchObject({ kind: 'input', slot: 'orderId' });
    const actionId = waiting.pendingAction!.actionId;

    const floodStart = Date.now();
    const refusedByServer: string[] = [];
    const signal = async () => {
      try {
        await handle.signal('provideInput', { slot: 'orderId', value: VALUE, actor: 'mallory@example.com' });
      } catch (err) {
        refusedByServer.push(String((err as { cause?: Error }).cause?.message ?? err));
      }
    };
    // Parallel batches, each sent once the run has taken the previous one (no workflow task pending):
    // a run can move to a new history only between signals (see docs/limits.md).
    for (let sent = 0; sent < FLOOD; sent += BATCH) {
      await Promise.all(Array.from({ length: Math.min(BATCH, FLOOD - sent) }, signal));
      await untilIdle(handle);
    }
    expect(refusedByServer).toEqual([]);
    const floodMs = Date.now() - floodStart;

    // Still waiting for the same action, in a later generation.
    const after = await waitForState(
      handle,
      (v) => v.status === 'awaiting_input' && v.signalRejections.length > 0,
      60_000,
    );
    expect(after.pendingAction?.actionId).toBe(actionId);
    expect(after.signalRejections.every((r) => r.code === 'signal.too_large')).toBe(true);

    // A valid answer (signed by an operator) is taken; the run goes on to its confirmation and ends.
    await decide(handle, 'provideInput', { slot: 'orderId', value: 'ORD-1001' }, after);
    await approvePending(handle, { timeoutMs: 60_000 });
    const result = (await handle.result()) as { status: string; output: { outcome: string } };
    expect(result).toMatchObject({ status: 'succeeded', output: { outcome: 'refunded' } });

    const runs = await executions(h.t.client, started.workflowId, waiting.firstExecutionRunId!);
    const all = runs.flatMap((r) => r.types);
    // 64 MB of signals in histories of at most the bound plus one batch: several generations.
    expect(runs.length).toBeGreaterThanOrEqual(5);
    expect(all.filter((t) => t === 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED').length).toBeGreaterThanOrEqual(
      FLOOD + 1,
    );
    expect(all).not.toContain('EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED');
    expect(all).not.toContain('EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT');
    // A continue-as-new the server refuses because more signals came meanwhile is retried with them
    // (cause UNHANDLED_COMMAND); no task fails for any other reason.
    expect(
      runs.flatMap((r) => r.failedCauses).filter((c) => c !== 'WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND'),
    ).toEqual([]);
    for (const r of runs) expect(r.historySizeBytes).toBeLessThan(2 * WAIT_HISTORY_BOUND_BYTES);
    expect(
      runs.slice(0, -1).every((r) => r.types.at(-1) === 'EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW'),
    ).toBe(true);

    // Every refusal is accounted for, one by one or counted; the events are bounded per generation.
    const events = await h.composition.store.listEvents(started.workflowId, { limit: 10_000 });
    // Every event once, in a gap-free sequence across the generations (and their retried last flushes).
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const rejected = events.filter((e) => e.type === 'human.signal_rejected');
    const suppressed = events
      .filter((e) => e.type === 'human.signal_rejections_suppressed')
      .reduce((n, e) => n + Number((e.data as { count: number }).count), 0);
    expect(rejected.length + suppressed).toBe(FLOOD);
    expect(rejected.length).toBeLessThanOrEqual(MAX_REFUSAL_EVENTS_PER_WAIT * runs.length);
    expect(rejected.every((e) => (e.data as { code: string }).code === 'signal.too_large')).toBe(true);
    // One request, taken up by each later generation, decided once.
    expect(
      events.filter(
        (e) =>
          e.type === 'human.requested' &&
          (e.data as { action: { actionId: string } }).action.actionId === actionId,
      ),
    ).toHaveLength(1);
    const movedWaiting = events.filter(
      (e) => e.type === 'checkpoint.saved' && (e.data as { waitingFor?: string }).waitingFor === actionId,
    );
    expect(movedWaiting.length).toBeGreaterThanOrEqual(5);
    expect(events.filter((e) => e.type === 'human.wait_continued')).toHaveLength(movedWaiting.length);
    expect(
      events.filter(
        (e) => e.type === 'human.decided' && (e.data as { actionId: string }).actionId === actionId,
      ),
    ).toHaveLength(1);
    const view = await handle.query<RunView>('state');
    expect(view.invocations.filter((i) => i.tool === 'refund.create')).toHaveLength(1);
    console.log(
      `${FLOOD} signals of 64 KiB sent in ${floodMs} ms; ${runs.length} executions, history sizes ${runs
        .map((r) => Math.round(r.historySizeBytes / 1024))
        .join(', ')} KiB; ${rejected.length} refusal events, ${suppressed} counted`,
    );
  });
});

/** The same path under the lowest bound, small enough to keep its histories as replay fixtures. */
describe('a confirmation wait under a small history bound', { timeout: 120_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('wait-bound');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a confirmation wait under a small bound moves to a new history and its approval is still taken', async () => {
    const started = await h.start({
      task: { message: 'refund ORD-1001 please', customerId: 'C1001' },
      waitHistoryBoundBytes: MIN_WAIT_HISTORY_BOUND_BYTES,
    });
    const handle = h.t.client.workflow.getHandle(started.workflowId);
    const waiting = await waitForPause(handle, 'awaiting_confirmation');
    const actionId = waiting.pendingAction!.actionId;
    const big = { actionId, actor: 'mallory@example.com', reason: 'x'.repeat(40 * 1024) };
    // One at a time, each taken before the next: the bound is crossed after a few.
    for (let i = 0; i < 3; i++) {
      await handle.signal('approve', big);
      await untilIdle(handle);
    }
    const moved = await waitForState(
      handle,
      (v) => v.status === 'awaiting_confirmation' && v.firstExecutionRunId !== undefined,
    );
    expect(moved.pendingAction?.actionId).toBe(actionId);
    const runsBefore = await executions(h.t.client, started.workflowId, waiting.firstExecutionRunId!);
    expect(runsBefore.length).toBeGreaterThanOrEqual(2);
    await decide(handle, 'approve', {}, moved);
    const result = (await handle.result()) as { status: string; output: { outcome: string } };
    expect(result).toMatchObject({ status: 'succeeded', output: { outcome: 'refunded' } });
    const runs = await executions(h.t.client, started.workflowId, waiting.firstExecutionRunId!);
    expect(runs.flatMap((r) => r.failedCauses)).toEqual([]);
    const events = await h.composition.store.listEvents(started.workflowId, { limit: 1000 });
    expect(
      events.filter(
        (e) => e.type === 'human.decided' && (e.data as { actionId: string }).actionId === actionId,
      ),
    ).toHaveLength(1);
    expect(events.filter((e) => e.type === 'human.requested')).toHaveLength(1);
    // HARNESS_RECORD_HISTORIES=<dir> keeps the first and the last execution as replay fixtures.
    const dir = process.env.HARNESS_RECORD_HISTORIES;
    if (dir) {
      const chosen = {
        'refund-graph-wait-moved-v1': runs[0]!,
        'refund-graph-wait-continued-v1': runs.at(-1)!,
      };
      for (const [name, run] of Object.entries(chosen)) {
        const history = await h.t.client.workflow.getHandle(started.workflowId, run.runId).fetchHistory();
        writeFileSync(
          join(dir, `${name}.json`),
          `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 1)}\n`,
        );
      }
    }
  });

  it('a wait inside a tool call (four-eyes at dispatch) ends the run with run.history_limit, nothing dispatched', async () => {
    const started = await h.start({
      task: { message: 'refund ORD-1005 please, it never shipped', customerId: 'C1001' },
      userId: TEST_KEYS.customer.principal,
      waitHistoryBoundBytes: MIN_WAIT_HISTORY_BOUND_BYTES,
    });
    const handle = h.t.client.workflow.getHandle(started.workflowId);
    const graph = await waitForState(
      handle,
      (v) =>
        v.pendingAction?.kind === 'confirmation' && v.humanRequest?.decisionType === 'refund_confirmation',
    );
    expect(await decide(handle, 'approve', {}, graph, { via: 'update' })).toMatchObject({ accepted: true });
    // refund.create waits at dispatch for a second approver: a wait the graph cannot resume.
    const dispatch = await waitForState(
      handle,
      (v) => v.pendingAction !== null && v.pendingAction.actionId !== graph.pendingAction!.actionId,
    );
    const actionId = dispatch.pendingAction!.actionId;
    const big = { actionId, actor: 'mallory@example.com', reason: 'x'.repeat(40 * 1024) };
    for (let i = 0; i < 3; i++) {
      const d = await handle.describe();
      if (d.status.name !== 'RUNNING') break;
      await handle.signal('approve', big);
      await untilIdle(handle);
    }
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('failed');
    expect(result.terminalReason).toMatchObject({
      code: 'run.history_limit',
      details: { actionId, waitingReason: dispatch.waitingReason },
    });
    const runs = await executions(h.t.client, started.workflowId, graph.firstExecutionRunId!);
    expect(runs.flatMap((r) => r.types)).not.toContain('EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED');
    const events = await h.composition.store.listEvents(started.workflowId, { limit: 1000 });
    expect(events.find((e) => e.type === 'run.failed')?.data).toMatchObject({
      reason: { code: 'run.history_limit' },
    });
    expect(
      events.filter(
        (e) => e.type === 'tool.authorized' && (e.data as { tool: string }).tool === 'refund.create',
      ),
    ).toHaveLength(0);
  });
});
