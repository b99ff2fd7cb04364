import type { WorkflowHandle } from '@temporalio/client';
import { defaultSeedData } from '../../apps/refund/business/seed-data.js';
import { storeLatencyFromEnv } from '../../apps/refund/business/store-latency.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDecision } from '../../src/client/decisions/sign-decision.js';
import { sendDecision, signedPayload } from '../../src/client/decisions/send-decision.js';
import type { DecisionOutcome } from '../../src/contract/signals.js';
import { recordHistory } from '../../src/worker/history-fixtures.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { decide } from '../support/decisions.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { TEST_KEYS } from '../support/principals.js';
import { callAt, textAt } from './runner-support.js';

const LARGE = 'ORD-1005'; // 6800.00 CNY, customer C1001: over the 5000.00 auto limit
const CUSTOMER = TEST_KEYS.customer.principal;

/** A second large order, for the assistant (each order is refunded at most once). */
const ASSISTED = 'ORD-LARGE-ASSISTED';

/** The model that proposes a large refund on its own. */
const EAGER = {
  entries: [
    callAt(0, 'refund.create', { orderId: ASSISTED, amountCents: 680_000, reason: 'the model thought so' }),
    textAt(1, 'done'),
  ],
  fallback: { text: 'done' },
};

const pendingIs = (kind: string, decisionType?: string) => (v: RunView) =>
  v.pendingAction?.kind === kind &&
  (decisionType === undefined || v.humanRequest?.decisionType === decisionType);

describe('who may decide: signed decisions and authorization rules on the real server', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('authorization', {
      scripts: { 'scripted/eager': EAGER },
    });
    const store = h.composition.refundStore;
    const paidAt = new Date(store.now().getTime() - 96 * 3_600_000).toISOString();
    store.seed({
      orders: [
        {
          id: ASSISTED,
          customerId: CUSTOMER,
          status: 'paid',
          amountCents: 680_000,
          currency: 'CNY',
          paidAt,
          phone: '13800001001',
        },
      ],
      logistics: [{ orderId: ASSISTED, status: 'not_shipped', updatedAt: paidAt }],
      policies: defaultSeedData(store.now()).policies,
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** HARNESS_RECORD_HISTORIES=<dir> keeps a history as a replay fixture (test/fixtures/histories). */
  async function record(workflowId: string, name: string): Promise<void> {
    const dir = process.env.HARNESS_RECORD_HISTORIES;
    if (dir) await recordHistory(h.t.client, workflowId, dir, name);
  }

  async function refusedWith(
    handle: WorkflowHandle,
    signal: 'approve' | 'reject' | 'confirm',
    payload: unknown,
  ) {
    const outcome = await sendDecision(handle, signal, payload);
    expect(outcome.accepted).toBe(false);
    return outcome.code;
  }

  it('four-eyes above the threshold: each bad decision is refused with its own code; two approvers and the customer pay once', async () => {
    const handle = await h.start({
      task: { message: `refund ${LARGE} please, it never shipped`, customerId: CUSTOMER },
      userId: CUSTOMER,
    });
    const graph = await waitForState(handle, pendingIs('confirmation', 'refund_confirmation'));
    const pending = graph.pendingAction!;
    expect(pending.actionId).toMatch(/^a\d+\.refund\.create\.[0-9a-f]{12}$/);
    expect(pending.argsDigest).toMatch(/^sha256:/);
    const base = { actionId: pending.actionId };
    const wf = handle.workflowId;
    const codes: string[] = [];
    // Unsigned (what a raw `temporal workflow signal` sends).
    codes.push(await refusedWith(handle, 'approve', { ...base, actor: 'operator@example.com' }));
    // A key the registry does not have.
    codes.push(
      await refusedWith(handle, 'approve', signedPayload(TEST_KEYS.mallory, graph, 'approve', {}, pending)),
    );
    // Expired (signed ten minutes ago, for one minute).
    codes.push(
      await refusedWith(
        handle,
        'approve',
        signDecision(
          TEST_KEYS.ops,
          { workflowId: wf, firstExecutionRunId: graph.firstExecutionRunId!, ...pending },
          'approve',
          { ...base, actor: TEST_KEYS.ops.principal },
          {
            ttlSeconds: 60,
            now: new Date(Date.now() - 600_000),
          },
        ),
      ),
    );
    // Signed for another action, for other arguments, for another run.
    const sign = (target: {
      workflowId?: string;
      firstExecutionRunId?: string;
      actionId?: string;
      argsDigest?: string;
    }) =>
      signDecision(
        TEST_KEYS.ops,
        {
          workflowId: wf,
          firstExecutionRunId: graph.firstExecutionRunId!,
          actionId: pending.actionId,
          argsDigest: pending.argsDigest ?? null,
          ...target,
        },
        'approve',
        { ...base, actor: TEST_KEYS.ops.principal },
      );
    codes.push(await refusedWith(handle, 'approve', sign({ actionId: 'a99.refund.create.000000000000' })));
    codes.push(await refusedWith(handle, 'approve', sign({ argsDigest: `sha256:${'0'.repeat(64)}` })));
    codes.push(await refusedWith(handle, 'approve', sign({ workflowId: 'another-run' })));
    // An earlier (or later) run under the same workflow id.
    codes.push(await refusedWith(handle, 'approve', sign({ firstExecutionRunId: 'an-earlier-run' })));
    // A payload changed after signing.
    codes.push(await refusedWith(handle, 'approve', { ...sign({}), reason: 'added later' }));
    // A registered principal without the role; the customer approving; a confirmation where an approval is due.
    codes.push(
      await refusedWith(handle, 'approve', signedPayload(TEST_KEYS.viewer, graph, 'approve', {}, pending)),
    );
    codes.push(
      await refusedWith(handle, 'approve', signedPayload(TEST_KEYS.customer, graph, 'approve', {}, pending)),
    );
    codes.push(
      await refusedWith(handle, 'confirm', signedPayload(TEST_KEYS.customer, graph, 'confirm', {}, pending)),
    );
    expect(codes).toEqual([
      'decision.unsigned',
      'decision.unknown_key',
      'decision.token_expired',
      'decision.wrong_action',
      'decision.wrong_arguments',
      'decision.wrong_workflow',
      'decision.wrong_run',
      'decision.payload_mismatch',
      'decision.role_missing',
      'decision.customer_cannot_approve',
      'decision.not_a_confirmation',
    ]);
    // Nothing changed: still the same pending action.
    expect((await handle.query<RunView>('state')).pendingAction?.actionId).toBe(pending.actionId);

    // The first approval (the graph's confirmation), then the policy's confirmation at dispatch.
    const first = await decide(handle, 'approve', {}, graph, { via: 'update' });
    expect(first).toMatchObject({ accepted: true, principal: TEST_KEYS.ops.principal });
    const dispatch = await waitForState(handle, pendingIs('confirmation', 'refund.amount_over_auto_limit'));
    expect(dispatch.pendingAction!.argsDigest).toBe(pending.argsDigest);
    // The same approver again: four-eyes.
    const again = (await decide(handle, 'approve', {}, dispatch, { via: 'update' })) as DecisionOutcome;
    expect(again).toMatchObject({ accepted: false, code: 'decision.same_approver' });
    const second = await decide(handle, 'approve', {}, dispatch, { via: 'update', key: TEST_KEYS.lead });
    expect(second).toMatchObject({ accepted: true, approvals: { have: 2, need: 2 } });

    // confirm.user.v2: the customer's own confirmation, which no approver can give.
    const customerWait = await waitForState(handle, pendingIs('confirmation', 'customer_confirmation'));
    expect(customerWait.humanRequest?.allowedDecisions).toEqual(['confirm', 'reject']);
    const byOps = (await decide(handle, 'approve', {}, customerWait, { via: 'update' })) as DecisionOutcome;
    expect(byOps.code).toBe('decision.customer_confirmation_required');
    const confirmed = await decide(handle, 'confirm', {}, customerWait, {
      via: 'update',
      key: TEST_KEYS.customer,
    });
    expect(confirmed).toMatchObject({ accepted: true, principal: CUSTOMER });

    const result = (await handle.result()) as { status: string; output: { outcome: string } };
    expect(result).toMatchObject({ status: 'succeeded', output: { outcome: 'refunded' } });
    const refund = await h.composition.refundStore.findRefundByKey(`${handle.workflowId}/4`);
    expect(refund?.amountCents).toBe(680_000);

    const events = await h.composition.store.listEvents(handle.workflowId);
    const decided = events
      .filter((e) => e.type === 'human.decided')
      .map((e) => (e.data as { actor: string }).actor);
    expect(decided).toEqual([TEST_KEYS.ops.principal, TEST_KEYS.lead.principal, CUSTOMER]);
    const audit = events.find((e) => e.type === 'audit.recorded');
    expect(audit?.data).toMatchObject({
      obligations: ['log.audit.high_risk'],
      tool: 'refund.create',
      approvers: [TEST_KEYS.ops.principal, TEST_KEYS.lead.principal],
      customer: CUSTOMER,
    });
    // The audit record was stored before the effect.
    const created = events.find(
      (e) => e.type === 'tool.authorized' && (e.data as { tool: string }).tool === 'refund.create',
    );
    expect(audit!.seq).toBeLessThan(created!.seq);
    const rejected = events
      .filter((e) => e.type === 'human.signal_rejected')
      .map((e) => (e.data as { code: string }).code);
    // Refused by the update's validator: the caller had the reason, the run's history and record nothing.
    expect(rejected).toEqual([]);
    const admitted = (await handle.fetchHistory()).events!.filter(
      (e) => e.workflowExecutionUpdateAcceptedEventAttributes,
    );
    // Only the two approvals and the customer's confirmation were admitted.
    expect(admitted).toHaveLength(3);

    // The run record names the verified principal of every decision.
    const runRecord = await h.composition.store.getRun(handle.workflowId);
    expect(runRecord?.decisions?.map((d) => [d.principal, d.kind])).toEqual([
      [TEST_KEYS.ops.principal, 'approval'],
      [TEST_KEYS.lead.principal, 'approval'],
      [CUSTOMER, 'customer_confirmation'],
    ]);
    await record(handle.workflowId, 'refund-graph-signed-four-eyes-v1');
  });

  it('the refund assistant under its default policy: a refund the model proposes needs two approvers; a replayed token is refused', async () => {
    const handle = await h.start({
      profile: { name: 'refund.assistant', version: 'v1' },
      modelRoute: 'scripted/eager',
      task: { message: 'how are you?' },
      userId: CUSTOMER,
    });
    const waiting = await waitForState(handle, pendingIs('human'));
    expect(waiting.versions.policy).toBe('refund.assisted@v1');
    const payload = signedPayload(TEST_KEYS.ops, waiting, 'approve', {}, waiting.pendingAction!);
    expect(await sendDecision(handle, 'approve', payload)).toMatchObject({
      accepted: true,
      approvals: { have: 1, need: 2 },
    });
    expect(await sendDecision(handle, 'approve', payload)).toMatchObject({ code: 'decision.token_reused' });
    expect(await decide(handle, 'approve', {}, waiting, { via: 'update' })).toMatchObject({
      code: 'decision.same_approver',
    });
    expect((await handle.query<RunView>('state')).status).toBe('awaiting_human');
    expect(
      await decide(handle, 'approve', {}, waiting, { via: 'update', key: TEST_KEYS.lead }),
    ).toMatchObject({
      accepted: true,
      approvals: { have: 2, need: 2 },
    });
    await handle.result();
    const view = await handle.query<RunView>('state');
    expect(view.invocations.filter((i) => i.tool === 'refund.create').map((i) => i.status)).toEqual([
      'succeeded',
    ]);
    await record(handle.workflowId, 'refund-assistant-signed-updates-v1');
  });

  it('the requester never approves their own action; with nobody authorized to approve, nothing is paid', async () => {
    const handle = await h.start({
      profile: { name: 'refund.assistant', version: 'v1' },
      modelRoute: 'scripted/eager',
      task: { message: 'refund me' },
      userId: TEST_KEYS.lead.principal,
      approvalTimeoutSeconds: 3,
    });
    const waiting = await waitForState(handle, pendingIs('human'));
    expect(
      await decide(handle, 'approve', {}, waiting, { via: 'update', key: TEST_KEYS.lead }),
    ).toMatchObject({
      accepted: false,
      code: 'decision.requester_cannot_approve',
    });
    const result = (await handle.result()) as { status: string };
    expect(result.status).toBe('failed');
    const view = await handle.query<RunView>('state');
    expect(view.invocations.some((i) => i.tool === 'refund.create')).toBe(false);
    expect(await h.composition.refundStore.findRefundByKey(`${handle.workflowId}/1`)).toBeUndefined();
  });

  it('a signed cancellation is checked before the run ever waited; an unsigned or unauthorized one is refused', async () => {
    // order.read takes 6 s: the run is inside its first tool call, it has never waited for anyone.
    const slow = await createHarnessFixture('authorization-slow', {
      drills: {
        latency: storeLatencyFromEnv({ HARNESS_REFUND_STORE_LATENCY_MS: 'readOrder=6000' }),
        reconcile: true,
      },
    });
    try {
      const handle = await slow.start({
        task: { message: 'refund ORD-1001 please', customerId: CUSTOMER },
        userId: CUSTOMER,
      });
      await waitForState(handle, (v) => v.invocations.some((i) => i.tool === 'order.read'));
      expect(await sendDecision(handle, 'cancelRun', { actor: 'ops', reason: 'stop' })).toMatchObject({
        code: 'decision.unsigned',
      });
      const byViewer = await decide(handle, 'cancelRun', { reason: 'stop' }, undefined, {
        via: 'update',
        key: TEST_KEYS.viewer,
      });
      expect(byViewer).toMatchObject({ code: 'decision.role_missing' });
      const byOps = await decide(handle, 'cancelRun', { reason: 'enough' }, undefined, { via: 'update' });
      expect(byOps).toMatchObject({ accepted: true, principal: TEST_KEYS.ops.principal });
      const result = (await handle.result()) as { status: string; terminalReason: { message: string } };
      expect(result.status).toBe('cancelled');
      expect(result.terminalReason.message).toBe('cancelled while a tool was running');
      expect(await slow.composition.refundStore.findRefundByKey(`${handle.workflowId}/4`)).toBeUndefined();
    } finally {
      await slow.close();
    }
  });
});
