import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import type { StoredEvent } from '../../src/contract/store-records.js';
import { createHarnessFixture, historyEventTypes, type HarnessFixture } from '../support/harness.js';
import { scheduledActivities } from './runner-support.js';

const DEADLINE_SECONDS = 86_400;

/** The graph node checks (`agent-run-graph-node-checks-v1`) on `graph.checks@v1` (test/support/workflow/graph-checks.ts). */
describe('graph node checks on the real server', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('graph-checks');
  });
  afterAll(async () => {
    await h?.close();
  });

  const run = (task: Record<string, unknown>): Promise<WorkflowHandle> =>
    h.start({ profile: { name: 'graph.checks', version: 'v1' }, task: { message: 'check', ...task } });

  const eventsOf = async (handle: WorkflowHandle): Promise<StoredEvent[]> =>
    h.composition.store.listEvents(handle.workflowId);

  const data = (events: readonly StoredEvent[], type: string): Record<string, unknown>[] =>
    events.filter((e) => e.type === type).map((e) => e.data);

  /** The timers the workflow started, in seconds (the run's wall-clock deadline timer aside). */
  async function timerSeconds(handle: WorkflowHandle): Promise<number[]> {
    const history = await handle.fetchHistory();
    return (history.events ?? [])
      .map((e) => e.timerStartedEventAttributes?.startToFireTimeout)
      .filter((t) => t !== undefined && t !== null)
      .map((t) => Number(t.seconds ?? 0) + (t.nanos ?? 0) / 1e9)
      .filter((seconds) => seconds < DEADLINE_SECONDS);
  }

  /** The patch ids of the workflow's markers. */
  async function patchMarkers(handle: WorkflowHandle): Promise<string[]> {
    const history = await handle.fetchHistory();
    const ids: string[] = [];
    for (const e of history.events ?? []) {
      const payload = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
      if (payload) ids.push((JSON.parse(Buffer.from(payload).toString('utf8')) as { id: string }).id);
    }
    return ids;
  }

  it('a node calls only the tools of its capability scope; route.decided names the edge taken', async () => {
    const handle = await run({ scenario: 'scope' });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    // The call outside the scope came back refused; the call inside it ran.
    expect(result.output).toMatchObject({
      refusedCode: 'route.capability_excluded',
      readStatus: 'succeeded',
    });
    const view = await handle.query<RunView>('state');
    expect(view.invocations.map((i) => i.tool)).toEqual(['order.read']);
    const tools = (await scheduledActivities(handle)).filter((a) => a.tool !== undefined).map((a) => a.tool);
    expect(tools).toEqual(['order.read']);

    const events = await eventsOf(handle);
    expect(data(events, 'route.decided')).toEqual([
      {
        route: 'graph.checks:route',
        candidateCapabilities: [],
        excludedCapabilities: ['order.read', 'logistics.read'],
        reasonCode: 'route.no_tools',
        edge: null,
        attempt: 1,
      },
      {
        route: 'graph.checks:scoped',
        candidateCapabilities: ['order.read'],
        excludedCapabilities: ['logistics.read'],
        reasonCode: 'route.node_capabilities',
        edge: { from: 'route', to: 'scoped', when: 'is_scope' },
        attempt: 1,
      },
      {
        route: 'graph.checks:done',
        candidateCapabilities: [],
        excludedCapabilities: ['order.read', 'logistics.read'],
        reasonCode: 'route.no_tools',
        edge: { from: 'scoped', to: 'done' },
        attempt: 1,
      },
    ]);
    // The refusal is recorded, in the attempt of the node that tried it.
    const excluded = events.filter((e) => e.type === 'route.capability_excluded');
    expect(excluded.map((e) => e.data)).toEqual([
      { node: 'scoped', tool: 'logistics.read', reasonCode: 'route.capability_excluded' },
    ]);
    const started = events.find((e) => e.type === 'step.started' && e.envelope.stepId === 'scoped')!;
    expect(started.envelope.attemptId).toBe(`scoped#1@${started.seq}`);
    expect(excluded[0]!.envelope.attemptId).toBe(started.envelope.attemptId);
    expect(events.some((e) => e.type === 'tool.authorized' && e.data.tool === 'logistics.read')).toBe(false);
    // The checks are on through the baseline (run-patches.ts): no marker of their own (a marker-free
    // start records none at all).
    expect(await patchMarkers(handle)).toEqual([]);
  });

  it('retry waits on durable timers with backoff and succeeds within the limit', async () => {
    const handle = await run({ scenario: 'retry', failures: 2 });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    expect(result.output).toMatchObject({ scenario: 'retry', tries: 3 });
    // Backoff 1 s, then 2 s, each a Temporal timer (not a busy loop).
    expect(await timerSeconds(handle)).toEqual([1, 2]);
    expect(await historyEventTypes(handle)).toContain('EVENT_TYPE_TIMER_FIRED');

    const events = await eventsOf(handle);
    const flaky = events.filter((e) => e.envelope.stepId === 'flaky' && e.type === 'step.started');
    expect(flaky.map((e) => e.data.attempt)).toEqual([1, 2, 3]);
    expect(flaky.map((e) => e.envelope.attemptId)).toEqual(flaky.map((e, i) => `flaky#${i + 1}@${e.seq}`));
    expect(
      data(events, 'state.transitioned')
        .filter((d) => d.toStatus === 'retry_scheduled')
        .map((d) => (d.patch as { waitingReason: string }).waitingReason),
    ).toEqual(['retry_after:1s', 'retry_after:2s']);
    // Each wait belongs to the attempt that asked for it.
    const waits = events.filter(
      (e) => e.type === 'state.transitioned' && e.data.toStatus === 'retry_scheduled',
    );
    expect(waits.map((e) => e.envelope.attemptId)).toEqual(
      flaky.slice(0, 2).map((e) => e.envelope.attemptId),
    );
    expect(data(events, 'step.completed').find((d) => d.stepId === 'flaky')).toEqual({
      stepId: 'flaky',
      attempt: 3,
    });
  });

  it('a retry after the last attempt fails the node with graph.attempts_exhausted', async () => {
    const handle = await run({ scenario: 'retry', failures: 5 });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('failed');
    expect(result.terminalReason).toMatchObject({
      code: 'graph.attempts_exhausted',
      details: { node: 'flaky', attempt: 3, maxAttempts: 3 },
    });
    expect(await timerSeconds(handle)).toEqual([1, 2]); // no wait after the last attempt
    const events = await eventsOf(handle);
    // Under the step contracts each attempt that asked to retry is a failed_retryable step.failed.
    const retryable = (attempt: number) => ({
      stepId: 'flaky',
      attempt,
      code: 'graph.node_retry',
      message: 'node flaky asked to retry',
      status: 'failed_retryable',
    });
    expect(data(events, 'step.failed')).toEqual([
      retryable(1),
      retryable(2),
      {
        stepId: 'flaky',
        attempt: 3,
        code: 'graph.attempts_exhausted',
        message: expect.stringContaining('flaky') as string,
        maxAttempts: 3,
        status: 'failed_terminal',
      },
    ]);
    expect(data(events, 'run.failed')[0]).toMatchObject({ reason: { code: 'graph.attempts_exhausted' } });
    expect(events.some((e) => e.type === 'step.started' && e.envelope.stepId === 'done')).toBe(false);
    expect((await h.composition.store.getRun(handle.workflowId))?.status).toBe('failed');
  });

  it('a state patch that does not fit the state schema fails the node with graph.invalid_state_patch', async () => {
    const handle = await run({ scenario: 'bad_patch' });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('failed');
    expect(result.terminalReason?.code).toBe('graph.invalid_state_patch');
    const issues = [
      { path: 'tries', code: 'invalid_type', message: expect.any(String) as string },
      { path: '', code: 'unrecognized_keys', message: expect.stringContaining('stray') as string },
    ];
    expect(result.terminalReason?.details).toEqual({ node: 'bad_patch', attempt: 1, issues });
    const events = await eventsOf(handle);
    const failed = events.filter((e) => e.type === 'step.failed');
    expect(failed.map((e) => e.data)).toEqual([
      {
        stepId: 'bad_patch',
        attempt: 1,
        code: 'graph.invalid_state_patch',
        message: expect.stringContaining('tries') as string,
        issues,
        status: 'failed_terminal',
      },
    ]);
    expect(failed[0]!.envelope.attemptId).toMatch(/^bad_patch#1@\d+$/);
    // The patch was not applied: the node never completed and no later node ran.
    expect(events.some((e) => e.type === 'step.completed' && e.envelope.stepId === 'bad_patch')).toBe(false);
    const view = await handle.query<RunView>('state');
    expect(view.completedSteps).toEqual(['route']);
    expect(await historyEventTypes(handle)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
  });
});
