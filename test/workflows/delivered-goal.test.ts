import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedProvider } from '../../src/index.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { recordHistory } from '../../src/worker/history-fixtures.js';
import { decide } from '../support/decisions.js';
import { waitForState, type HarnessFixture } from '../support/harness.js';
import { createLostRefundFixture } from '../support/lost-refund.js';
import { testRunId } from '../support/run-id.js';
import { callAt } from './runner-support.js';

/** refund.create is the goal run's first invocation. */
const CREATE_SEQ = 1;
const DEADLINE_SECONDS = 15;

/**
 * The goal profile's delivered answer (`agent-run-delivered-outcome-v1`, `deliveredAnswer`): a goal
 * run's refund takes effect but its outcome is unknown (the connection broke after the commit, no
 * reconciler), the run's deadline passes while a person reconciles it, the person settles it
 * `succeeded`: the run ends `budget_exhausted` with `outcome: 'delivered'`, and its output is the
 * answer the profile composed (no model call after the budget).
 */
describe("a goal profile's delivered answer", { timeout: 180_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createLostRefundFixture('delivered-goal');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('ends budget_exhausted with the delivered outcome and the profile’s answer once the write is settled after the deadline', async () => {
    const route = `scripted/delivered-goal-${Date.now()}`;
    h.composition.models.register(
      route,
      new ScriptedProvider({
        entries: [
          callAt(0, 'refund.create', {
            orderId: 'ORD-1001',
            amountCents: 100,
            reason: 'not shipped after 72 hours',
          }),
        ],
      }),
      'scripted',
    );
    const handle = await h.start(
      {
        profile: { name: 'delivered.goal', version: 'v1' },
        modelRoute: route,
        task: { message: 'Refund ORD-1001 please' },
        budget: { deadlineSeconds: DEADLINE_SECONDS },
      },
      testRunId('delivered-goal'),
    );
    const overdue = await waitForState(
      handle,
      (v) => v.waitingReason === 'unknown_write_outcome_overdue',
      (DEADLINE_SECONDS + 60) * 1000,
    );
    expect(overdue.pendingAction).toMatchObject({ kind: 'reconcile', invocationSeq: CREATE_SEQ });
    const refund = await h.composition.refundStore.findRefundByKey(`${handle.workflowId}/${CREATE_SEQ}`);
    expect(refund).toBeDefined();
    await decide(
      handle,
      'reconcile',
      {
        invocationSeq: CREATE_SEQ,
        outcome: 'succeeded',
        externalId: refund!.id,
        evidence: { lookedUp: 'idempotency key' },
      },
      overdue,
    );
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('budget_exhausted');
    const delivered = {
      code: 'budget.wall_clock_deadline',
      outcome: 'delivered',
      delivered: [
        expect.objectContaining({
          seq: CREATE_SEQ,
          tool: 'refund.create',
          externalId: refund!.id,
          resolvedBy: expect.stringMatching(/^operator:/) as string,
        }),
      ],
    };
    expect(result.terminalReason).toMatchObject(delivered);
    // The answer the goal profile composed (deliveredAnswer), not the runner's summary.
    expect(result.output).toEqual({
      outcome: 'refund_recorded_unverified',
      references: [refund!.id],
      message: `Your refund was recorded (reference ${refund!.id}); it is not verified yet (budget.wall_clock_deadline).`,
    });
    const view = await handle.query<RunView>('state');
    expect(view.output).toEqual(result.output);
    expect(view.budget.modelCalls).toBe(1);
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.find((e) => e.type === 'run.outcome_delivered')?.data).toMatchObject({
      code: 'budget.wall_clock_deadline',
      composedBy: 'profile',
      answer: 'composed',
    });
    expect(events.find((e) => e.type === 'run.failed')?.data).toMatchObject({
      status: 'budget_exhausted',
      reason: delivered,
      output: result.output,
    });
    expect((await h.composition.store.getRun(handle.workflowId))?.output).toEqual(result.output);
    const dir = process.env.HARNESS_RECORD_HISTORIES;
    if (dir) await recordHistory(h.t.client, handle.workflowId, dir, 'delivered-goal-overdue-v1');
  });
});
