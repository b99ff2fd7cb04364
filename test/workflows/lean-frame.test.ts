import { createHook } from 'node:async_hooks';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { START_FEATURES_MEMO_KEY } from '../../src/contract/visibility.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import { LEAN_FRAME_PATCH } from '../../src/workflows/temporal/run-patches.js';
import { decide } from '../support/decisions.js';
import { waitForState, type HarnessFixture } from '../support/harness.js';
import { historyOf } from '../support/history.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';
import {
  createStartFeatureFixture,
  policySearchScript,
  replayHistory,
  withoutStartFeature,
  type FinishedRun,
  type History,
} from '../support/start-features.js';

/** One search of the refund policy, then the answer (support.answer). */
const SCRIPT = policySearchScript(['refund window']);

/** `history` with the lean frame left out of its start memo's features: the scoped frame on replay. */
function withoutLeanFrame(history: History): History {
  return withoutStartFeature(history, LEAN_FRAME_PATCH);
}

/** Replay `history`; the promises created in the workflow sandbox meanwhile (not this realm's). */
async function replayCountingPromises(history: History, workflowId: string): Promise<number> {
  let sandbox = 0;
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'PROMISE' && !(resource instanceof Promise)) sandbox += 1;
    },
  }).enable();
  try {
    await replayHistory(history, workflowId);
  } finally {
    hook.disable();
  }
  return sandbox;
}

/** The run's stored event types, in order. */
async function storedTypes(h: HarnessFixture, workflowId: string): Promise<string[]> {
  return (await h.composition.store.listEvents(workflowId)).map((e) => e.type);
}

/**
 * The lean frame (docs/history-cost.md, "The run's frame"): a run started by `startAgentRun` takes it;
 * it keeps what the scoped frame did (same commands, same events, the last events stored however the
 * run ends) with fewer promises in the sandbox.
 */
describe('the lean frame (agent-run-lean-frame-v1) on the real server', () => {
  let h: HarnessFixture;
  let answered: FinishedRun;

  beforeAll(async () => {
    ({ h, run: answered } = await createStartFeatureFixture('lean-frame', {
      scripts: { 'scripted/lean-frame': SCRIPT },
      env: { HARNESS_REFUND_STORE_LATENCY_MS: 'createRefund=60000' },
      input: {
        profile: { name: 'support.answer', version: 'v1' },
        modelRoute: 'scripted/lean-frame',
        task: { message: 'how long is the refund window?' },
      },
      fixture: 'support-lean-frame-v1',
    }));
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('startAgentRun asks for it in the start memo; the run records no marker', async () => {
    const memo = (await answered.handle.describe()).memo?.[START_FEATURES_MEMO_KEY];
    expect(memo).toContain(LEAN_FRAME_PATCH);
    expect((await historyOf(answered.handle)).filter((e) => e.patchId !== undefined)).toEqual([]);
    expect((await storedTypes(h, answered.handle.workflowId)).slice(-2)).toEqual([
      'run.completed',
      'run.sealed',
    ]);
  });

  it('replays with either frame (the same commands), with fewer promises in the lean one', async () => {
    const id = answered.handle.workflowId;
    const lean = await replayCountingPromises(answered.history, id);
    const scoped = await replayCountingPromises(withoutLeanFrame(answered.history), id);
    console.log(`sandbox promises per replay of a 1-step support run: lean ${lean}, scoped ${scoped}`);
    // The deadline's scope and async body, the last flush's scope and the Runner's await on it.
    expect(scoped - lean).toBeGreaterThanOrEqual(10);
  });

  it('the deadline while waiting for approval: the same terminal reason and events, the same commands in either frame', async () => {
    const handle = await h.start({
      task: { message: 'My order ORD-1001 has not shipped, please refund', customerId: 'C1001' },
      budget: { deadlineSeconds: 4 },
    });
    await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('budget_exhausted');
    expect(result.terminalReason?.code).toBe('budget.wall_clock_deadline');
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.slice(-2).map((e) => [e.type, e.data.status])).toEqual([
      ['run.failed', 'budget_exhausted'],
      ['run.sealed', 'budget_exhausted'],
    ]);
    const history = await handle.fetchHistory();
    await replayCountingPromises(history, handle.workflowId);
    await replayCountingPromises(withoutLeanFrame(history), handle.workflowId);
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'refund-graph-lean-frame-deadline-v1');
  }, 60_000);

  /** A refund run whose approved write (60 s of store latency) is running. */
  async function writeRunning(): Promise<WorkflowHandle> {
    const handle = await h.start({
      task: { message: 'refund ORD-1001', customerId: 'C1001' },
      activityTimeouts: { writeHeartbeatSeconds: 5 },
    });
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    await decide(handle, 'approve', {}, waiting);
    await waitForState(handle, (v) =>
      v.invocations.some((i) => i.tool === 'refund.create' && i.status === 'pending'),
    );
    return handle;
  }

  it('a Temporal cancellation request during a write: ends cancelled and still stores its last events', async () => {
    const handle = await writeRunning();
    await handle.cancel();
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('cancelled');
    expect(result.terminalReason?.code).toBe('run.cancelled');
    // The last flush found the root scope cancelled and stored the events shielded (a local
    // activity's marker after the request), and the run completed with its result.
    const types = (await historyOf(handle)).map((e) => e.type);
    const requested = types.indexOf('EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED');
    expect(requested).toBeGreaterThan(0);
    expect(types.slice(requested)).toContain('EVENT_TYPE_MARKER_RECORDED');
    expect(types.at(-1)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
    expect(types).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
    const stored = await storedTypes(h, handle.workflowId);
    expect(stored.slice(-2)).toEqual(['run.cancelled', 'run.sealed']);
    // The memo decides: the lean frame replays it; the scoped frame orders the cancellations otherwise.
    const full = await handle.fetchHistory();
    await replayCountingPromises(full, handle.workflowId);
    await expect(replayCountingPromises(withoutLeanFrame(full), handle.workflowId)).rejects.toMatchObject({
      name: 'DeterminismViolationError',
    });
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'refund-graph-lean-frame-cancelled-v1');
  }, 90_000);

  it('a cancelRun signal during a write: ends cancelled and stores its last events', async () => {
    const handle = await writeRunning();
    await decide(handle, 'cancelRun', { reason: 'customer withdrew' }, undefined);
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('cancelled');
    expect(result.terminalReason?.code).toBe('run.cancelled');
    expect((await storedTypes(h, handle.workflowId)).slice(-2)).toEqual(['run.cancelled', 'run.sealed']);
    // The same commands in either frame.
    const history = await handle.fetchHistory();
    await replayCountingPromises(history, handle.workflowId);
    await replayCountingPromises(withoutLeanFrame(history), handle.workflowId);
  }, 90_000);
});
