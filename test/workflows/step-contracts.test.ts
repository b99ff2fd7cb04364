import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { StoredEvent } from '../../src/contract/store-records.js';
import type { ModelScript } from '../../src/activities/model/scripted-script.js';
import { decide } from '../support/decisions.js';
import {
  createHarnessFixture,
  refundRunInput,
  waitForState,
  type HarnessFixture,
} from '../support/harness.js';
import { registerStepsTools } from '../support/steps-tools.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';

type Envelope = { stepId?: string | null; attemptId?: string | null };

/** One search of the refund policy, then the answer (as in marker-free-start.test.ts). */
const SCRIPT: ModelScript = {
  entries: [
    {
      match: { step: 0 },
      response: {
        text: '',
        toolCalls: [{ name: 'policy.search.refund', version: 'v1', args: { query: 'refund window' } }],
      },
    },
  ],
  fallback: { text: 'final answer', toolCalls: [] },
};

/**
 * The node and step contracts (`agent-run-step-contracts-v1`, docs/runner.md "Step contracts") on
 * `graph.steps@v1` (test/support/workflow/graph-steps.ts) and the `support.answer` goal profile.
 */
describe('node and step contracts on the real server', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('step-contracts', {
      scripts: { 'scripted/steps': SCRIPT },
      extend: [registerStepsTools],
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const run = (task: Record<string, unknown>): Promise<WorkflowHandle> =>
    h.start({ profile: { name: 'graph.steps', version: 'v1' }, task: { message: 'steps', ...task } });
  const eventsOf = (handle: WorkflowHandle): Promise<StoredEvent[]> =>
    h.composition.store.listEvents(handle.workflowId);
  const envelope = (e: StoredEvent): Envelope => e.envelope;

  it("a node's handler gets its attempt id, attempt, deadline and cancellation flag", async () => {
    const handle = await run({ scenario: 'contract' });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    const events = await eventsOf(handle);
    const seen = events.find((e) => e.type === 'test.node_context')!.data;
    const started = events.find((e) => e.type === 'step.started' && e.data.stepId === 'inspect')!;
    expect(seen).toMatchObject({
      runId: handle.workflowId,
      stepId: 'inspect',
      attempt: 1,
      attemptId: `inspect#1@${started.seq}`,
      cancelled: false,
      cancelReason: null,
    });
    // Its own 60 s from workflow time when the handler started, within the run's deadline.
    expect(Date.parse(String(seen.deadline)) - Date.parse(started.occurredAt)).toBe(60_000);
    expect(Date.parse(String(seen.deadline))).toBeLessThan(Date.parse(String(seen.runDeadline)));
    expect(envelope(started).attemptId).toBe(seen.attemptId);
  });

  it('an attempt past its deadline fails failed_retryable; the next attempt succeeds', async () => {
    const handle = await run({ scenario: 'deadline', failures: 1 });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    const events = await eventsOf(handle);
    // The node saw its cancellation flag turn on at the deadline.
    expect(events.filter((e) => e.type === 'test.node_saw').map((e) => e.data)).toEqual([
      { attempt: 1, cancelReason: 'deadline' },
    ]);
    const failed = events.filter((e) => e.type === 'step.failed');
    expect(failed.map((e) => e.data)).toEqual([
      expect.objectContaining({
        stepId: 'slow',
        attempt: 1,
        code: 'graph.node_deadline',
        status: 'failed_retryable',
      }),
    ]);
    const slowStarts = events.filter((e) => e.type === 'step.started' && e.data.stepId === 'slow');
    expect(slowStarts.map((e) => e.data.attempt)).toEqual([1, 2]);
    expect(envelope(failed[0]!).attemptId).toBe(envelope(slowStarts[0]!).attemptId);
    expect(events.find((e) => e.type === 'step.completed' && e.data.stepId === 'slow')?.data).toEqual({
      stepId: 'slow',
      attempt: 2,
    });
    // The result that came too late was discarded; the second attempt's stands.
    expect(result.output).toMatchObject({ seenAttempt: 2 });
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'graph-steps-node-deadline-v1');
  });

  it('a node past its deadline on its last attempt fails the run with graph.node_deadline', async () => {
    const handle = await run({ scenario: 'deadline', failures: 2 });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('failed');
    expect(result.terminalReason).toMatchObject({
      code: 'graph.node_deadline',
      details: { node: 'slow', attempt: 2, maxAttempts: 2 },
    });
    const events = await eventsOf(handle);
    expect(
      events.filter((e) => e.type === 'step.failed').map((e) => [e.data.attempt, e.data.status]),
    ).toEqual([
      [1, 'failed_retryable'],
      [2, 'failed_terminal'],
    ]);
  });

  it("a node sees the run's cancellation on its cancellation flag", async () => {
    const handle = await run({ scenario: 'cancel' });
    await waitForState(handle, (v) => v.status === 'retry_scheduled' && v.currentNode === 'parked');
    await decide(handle, 'cancelRun', { reason: 'stop' }, undefined);
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('cancelled');
    const events = await eventsOf(handle);
    expect(events.filter((e) => e.type === 'test.node_saw').map((e) => e.data)).toEqual([
      { cancelled: true, cancelReason: 'run_cancelled' },
    ]);
  });

  it('a node sees a Temporal workflow cancellation on its cancellation flag (agent-run-config-pin-v1)', async () => {
    const handle = await run({ scenario: 'cancel' });
    await waitForState(handle, (v) => v.status === 'retry_scheduled' && v.currentNode === 'parked');
    // A plain cancellation (Temporal UI, `temporal workflow cancel`), not the cancelRun signal.
    await handle.cancel();
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('cancelled');
    const events = await eventsOf(handle);
    expect(events.filter((e) => e.type === 'test.node_saw').map((e) => e.data)).toEqual([
      { cancelled: true, cancelReason: 'run_cancelled' },
    ]);
  });

  it('a read attempt that fails and is tried again is stored failed_retryable, then succeeded', async () => {
    const handle = await run({ scenario: 'read', failures: 1 });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    expect(result.output).toMatchObject({ readStatus: 'succeeded' });
    const events = await eventsOf(handle);
    const seq = Number(events.find((e) => e.type === 'tool.authorized')!.data.seq);
    const record = await h.composition.store.getInvocation(handle.workflowId, seq);
    expect(record?.results.map((r) => [r.attempt, r.status, r.errorCode ?? null])).toEqual([
      [1, 'failed_retryable', 'tool.read_failed'],
      [2, 'succeeded', null],
    ]);
    expect(record?.result?.status).toBe('succeeded');
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'graph-steps-read-retry-v1');
  });

  it('goal model turns and tool calls carry step and attempt ids', async () => {
    const handle = await h.start(
      refundRunInput({
        profile: { name: 'support.answer', version: 'v1' },
        modelRoute: 'scripted/steps',
        task: { message: 'how long is the refund window?' },
      }),
    );
    expect(((await handle.result()) as AgentRunResult).status).toBe('succeeded');
    const events = await eventsOf(handle);
    const ids = (type: string) =>
      events.filter((e) => e.type === type).map((e) => [envelope(e).stepId, envelope(e).attemptId]);
    expect(ids('model.started')).toEqual([
      ['model-1', 'model-1#1'],
      ['model-2', 'model-2#1'],
    ]);
    expect(ids('model.completed')).toEqual(ids('model.started'));
    const seq = Number(events.find((e) => e.type === 'tool.authorized')!.data.seq);
    expect(ids('tool.authorized')).toEqual([[`tool-${seq}`, `tool-${seq}#1`]]);
    expect(ids('tool.completed')).toEqual(ids('tool.authorized'));
    // Between steps, events belong to none.
    expect(ids('run.completed')).toEqual([[null, null]]);
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'support-step-contracts-v1');
  });
});
