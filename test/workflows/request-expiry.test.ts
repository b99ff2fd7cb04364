import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { decide } from '../support/decisions.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { waitForState, type HarnessFixture } from '../support/harness.js';
import { createLostRefundFixture } from '../support/lost-refund.js';

/** refund.create is the 4th invocation of the refund graph. */
const CREATE_SEQ = 4;
const TIMEOUT_SECONDS = 6;

const typesOf = async (h: HarnessFixture, workflowId: string, type: string) =>
  (await h.composition.store.listEvents(workflowId)).filter((e) => e.type === type).map((e) => e.data);

/**
 * Every human request expires (agent-run-human-request-expiry-v1), each with a recorded outcome: an
 * input request without a declared default ends the run; a reconcile request escalates and keeps
 * waiting (an unresolved write is never dropped).
 */
describe('reconcile and input requests expire (real server)', { timeout: 120_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createLostRefundFixture('request-expiry');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('an unanswered input request expires: recorded, and the run ends failed with input.expired', async () => {
    const handle = await h.start({
      task: { message: 'refund please', customerId: 'C1001' },
      approvalTimeoutSeconds: TIMEOUT_SECONDS,
    });
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_input', 60_000);
    expect(waiting.pendingAction).toMatchObject({ kind: 'input', slot: 'orderId' });
    const expiresAt = waiting.pendingAction!.expiresAt;
    expect(expiresAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(waiting.humanRequest?.expiresAt).toBe(expiresAt);
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('failed');
    expect(result.terminalReason?.code).toBe('input.expired');
    expect(await typesOf(h, handle.workflowId, 'human.request_expired')).toEqual([
      expect.objectContaining({ kind: 'input', slot: 'orderId', expiresAt, outcome: 'run_failed' }),
    ]);
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'refund-graph-input-expired-v1');
  });

  it('an unanswered reconcile request expires into an escalation and keeps waiting for the person', async () => {
    const handle = await h.start({
      task: { message: 'refund ORD-1001 please, it has not shipped', customerId: 'C1001' },
      approvalTimeoutSeconds: TIMEOUT_SECONDS,
    });
    const confirm = await waitForState(handle, (v) => v.status === 'awaiting_confirmation', 60_000);
    await decide(handle, 'approve', {}, confirm);
    const waiting = await waitForState(handle, (v) => v.waitingReason === 'unknown_write_outcome', 60_000);
    const expiresAt = waiting.pendingAction!.expiresAt;
    expect(expiresAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(waiting.humanRequest?.expiresAt).toBe(expiresAt);

    const overdue = await waitForState(
      handle,
      (v) => v.waitingReason === 'unknown_write_outcome_overdue',
      (TIMEOUT_SECONDS + 30) * 1000,
    );
    expect(overdue.status).toBe('awaiting_human');
    expect(overdue.pendingAction).toMatchObject({
      kind: 'reconcile',
      invocationSeq: CREATE_SEQ,
      actionId: waiting.pendingAction!.actionId,
      expiresAt: null,
    });
    expect(overdue.humanRequest?.riskReasons).toContain('request_expired');
    expect(overdue.humanRequest?.requestSummary).toMatch(/^OVERDUE/);
    // Stored before the escalated wait starts (the wait flushes its events first).
    await expect
      .poll(() => typesOf(h, handle.workflowId, 'human.escalated'), { timeout: 20_000 })
      .toEqual([
        expect.objectContaining({ invocationSeq: CREATE_SEQ, reason: 'request_expired', expiresAt }),
      ]);
    expect(await typesOf(h, handle.workflowId, 'human.request_expired')).toEqual([
      expect.objectContaining({ kind: 'reconcile', invocationSeq: CREATE_SEQ, outcome: 'escalated' }),
    ]);
    // Nothing was decided for the person: the write is still unresolved, the run still waits.
    expect(overdue.invocations.find((i) => i.seq === CREATE_SEQ)?.status).toBe('outcome_unknown');
    expect((await handle.describe()).status.name).toBe('RUNNING');

    const refund = await h.composition.refundStore.findRefundByKey(`${handle.workflowId}/${CREATE_SEQ}`);
    await decide(
      handle,
      'reconcile',
      { invocationSeq: CREATE_SEQ, outcome: 'succeeded', externalId: refund!.id },
      overdue,
    );
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    const view = await handle.query<RunView>('state');
    expect(view.invocations.find((i) => i.seq === CREATE_SEQ)?.resolvedBy).toMatch(/^operator:/);
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'refund-graph-reconcile-expired-v1');
  });
});
