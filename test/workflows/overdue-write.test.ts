import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { recordHistory } from '../../src/worker/history-fixtures.js';
import { describeRun } from '../../src/cli/connect.js';
import { renderRun } from '../../src/cli/render-run.js';
import { decide } from '../support/decisions.js';
import { waitForState, type HarnessFixture } from '../support/harness.js';
import { createLostRefundFixture } from '../support/lost-refund.js';

/** refund.create is the 4th invocation of the refund graph. */
const CREATE_SEQ = 4;
const DEADLINE_SECONDS = 20;

/**
 * An unresolved write is never dropped: the run's deadline passes while it waits for a person to
 * reconcile a write whose outcome nobody knows. The run escalates and keeps waiting; the person's
 * decision is recorded; then the run ends on its deadline with the write settled, and since the write
 * took effect, the customer still gets the graph's answer and the record says what was delivered.
 */
describe('the deadline during a reconciliation wait', { timeout: 180_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createLostRefundFixture('overdue-write');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('escalates (event, request, AgentWaitingReason) and keeps waiting; ends budget_exhausted with the delivered outcome and the answer once the write is settled', async () => {
    const handle = await h.start({
      task: { message: 'refund ORD-1001 please, it has not shipped', customerId: 'C1001' },
      budget: { deadlineSeconds: DEADLINE_SECONDS },
    });
    const confirm = await waitForState(handle, (v) => v.status === 'awaiting_confirmation', 60_000);
    await decide(handle, 'approve', {}, confirm);
    const waiting = await waitForState(handle, (v) => v.waitingReason === 'unknown_write_outcome', 60_000);
    expect(waiting.pendingAction).toMatchObject({ kind: 'reconcile', invocationSeq: CREATE_SEQ });

    const overdue = await waitForState(
      handle,
      (v) => v.waitingReason === 'unknown_write_outcome_overdue',
      (DEADLINE_SECONDS + 30) * 1000,
    );
    expect(overdue.status).toBe('awaiting_human');
    expect(overdue.pendingAction).toMatchObject({ kind: 'reconcile', invocationSeq: CREATE_SEQ });
    expect(overdue.humanRequest?.riskReasons).toContain('deadline_passed');
    expect(overdue.humanRequest?.requestSummary).toMatch(/^OVERDUE/);
    expect(overdue.invocations.find((i) => i.seq === CREATE_SEQ)?.status).toBe('outcome_unknown');
    // Operators find it by the search attribute.
    await expect
      .poll(
        async () => {
          const ids: string[] = [];
          for await (const w of h.t.client.workflow.list({
            query: `AgentWaitingReason = 'unknown_write_outcome_overdue' AND WorkflowId = '${handle.workflowId}'`,
          }))
            ids.push(w.workflowId);
          return ids;
        },
        { timeout: 30_000, interval: 500 },
      )
      .toEqual([handle.workflowId]);
    // Stored at once (the escalation flushes its event), not only with the next activity.
    const escalated = async () =>
      (await h.composition.store.listEvents(handle.workflowId))
        .filter((e) => e.type === 'human.escalated')
        .map((e) => e.data);
    await expect.poll(escalated, { timeout: 30_000, interval: 300 }).toEqual([
      expect.objectContaining({
        invocationSeq: CREATE_SEQ,
        reason: 'deadline_passed',
        deadlineSeconds: DEADLINE_SECONDS,
      }),
    ]);
    // Still waiting well after the deadline.
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await handle.describe()).status.name).toBe('RUNNING');

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
    // The status stays budget_exhausted (the budget reason); the record also says what was delivered.
    expect(result.status).toBe('budget_exhausted');
    expect(result.terminalReason?.code).toBe('budget.wall_clock_deadline');
    const delivered = {
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
    // The customer gets the refund graph's answer: recorded, not yet verified (no "refunded" claim).
    expect(result.output).toMatchObject({
      outcome: 'refund_recorded_unverified',
      refundId: refund!.id,
      orderId: 'ORD-1001',
      message: expect.stringContaining(`was recorded (reference ${refund!.id})`) as string,
    });
    const view = await handle.query<RunView>('state');
    expect(view.terminalReason).toMatchObject(delivered);
    expect(view.output).toEqual(result.output);
    const write = view.invocations.find((i) => i.seq === CREATE_SEQ);
    expect(write?.status).toBe('succeeded');
    expect(write?.resolvedBy).toMatch(/^operator:/);
    const record = await h.composition.store.getInvocation(handle.workflowId, CREATE_SEQ);
    expect(record?.result).toMatchObject({ status: 'succeeded', source: 'operator' });
    // The evidence: run.outcome_delivered, then run.failed with the answer; the stored run record.
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
    const run = await h.composition.store.getRun(handle.workflowId);
    expect(run?.terminalReason).toMatchObject(delivered);
    expect(run?.output).toEqual(result.output);
    // harness show names what was delivered.
    const shown = renderRun(await describeRun(handle), view);
    expect(shown).toContain(`terminal reason: budget.wall_clock_deadline`);
    expect(shown).toContain(`delivered: #${CREATE_SEQ} refund.create@v1 (${refund!.id})`);
    // HARNESS_RECORD_HISTORIES=<dir> keeps the history as a replay fixture (test/fixtures/histories).
    const dir = process.env.HARNESS_RECORD_HISTORIES;
    if (dir) await recordHistory(h.t.client, handle.workflowId, dir, 'refund-graph-overdue-delivered-v1');
  });
});
