import type { WorkflowHandle } from '@temporalio/client';
import { signedPayload } from '../../src/client/decisions/send-decision.js';
import { decide, TEST_APPROVER } from '../support/decisions.js';
import { TEST_KEYS } from '../support/principals.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reachableNodes } from '../../src/workflows/runner/graph-profile.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { seedDemoOrder } from '../../apps/refund/demo-order.js';
import { REFUND_GRAPH } from '../../apps/refund/workflow/refund-graph.js';
import { recordHistory } from '../../src/worker/history-fixtures.js';
import {
  createHarnessFixture,
  historyEventTypes,
  waitForState,
  type HarnessFixture,
} from '../support/harness.js';
import { signalWithTemporalCli } from '../support/temporal.js';

/** Poll the history until it has started `count` timers. */
async function waitForTimers(handle: WorkflowHandle, count: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const types = await historyEventTypes(handle);
    if (types.filter((t) => t === 'EVENT_TYPE_TIMER_STARTED').length >= count) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${count} started timers`);
}

describe('refund graph on the real server', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('refund');
  });
  afterAll(async () => {
    await h?.close();
  });

  /** HARNESS_RECORD_HISTORIES=<dir> keeps a history as a replay fixture (test/fixtures/histories). */
  async function keepHistory(workflowId: string, name: string): Promise<void> {
    const dir = process.env.HARNESS_RECORD_HISTORIES;
    if (dir) await recordHistory(h.t.client, workflowId, dir, name);
  }

  it('waits for confirmation, then refunds once with a verified artifact after an approve signal', async () => {
    const handle = await h.start({
      task: { message: 'My order ORD-1001 has not shipped for days, please refund', customerId: 'C1001' },
    });
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    expect(waiting.waitingReason).toBe('confirmation_required');
    expect(waiting.humanRequest?.decisionType).toBe('refund_confirmation');
    expect(waiting.humanRequest?.verifiedFacts.some((f) => f.startsWith('fact://order/ORD-1001@v'))).toBe(
      true,
    );
    expect(waiting.invocations.map((i) => i.tool)).toEqual([
      'order.read',
      'logistics.read',
      'policy.search.refund',
    ]);
    expect(waiting.facts['order.owner_verified']).toBe(true);
    const actionId = waiting.pendingAction!.actionId;

    await handle.signal('approve', { actionId: 'act-forged', actor: 'mallory' });
    await handle.signal('approve', { actor: 'no-action-id' });
    // Right action, any actor, no token: a raw `temporal workflow signal` changes nothing.
    await handle.signal('approve', { actionId, actor: 'operator@example.com', reason: 'policy R001' });
    await decide(handle, 'approve', { reason: 'policy R001' }, waiting);
    const result = (await handle.result()) as {
      status: string;
      output: { outcome: string; refundId: string };
    };
    expect(result.status).toBe('succeeded');
    expect(result.output.outcome).toBe('refunded');

    const view = await handle.query<RunView>('state');
    expect(view.artifacts.some((a) => a.provenance === 'verified' && a.type === 'refund.verification')).toBe(
      true,
    );
    expect(view.invocations.filter((i) => i.tool === 'refund.create')).toHaveLength(1);
    const refusals = ['signal.action_mismatch', 'signal.malformed', 'decision.unsigned'];
    expect(view.signalRejections.map((r) => r.code)).toEqual(refusals);
    const refunds = await h.composition.refundStore.findRefundByKey(`${handle.workflowId}/4`);
    expect(refunds?.orderId).toBe('ORD-1001');

    const events = await h.composition.store.listEvents(handle.workflowId);
    const rejected = events
      .filter((e) => e.type === 'human.signal_rejected')
      .map((e) => (e.data as { code: string }).code);
    expect(rejected).toEqual(refusals);
    expect(events.find((e) => e.type === 'human.decided')?.data).toMatchObject({
      decision: 'approved',
      actor: TEST_APPROVER,
    });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));

    // the evidence store keeps the run record: pinned versions, the end, the response and the budget
    const record = await h.composition.store.getRun(handle.workflowId);
    expect(record).toMatchObject({
      runId: handle.workflowId,
      versions: {
        profile: 'refund.graph@v1',
        policy: view.versions.policy,
        toolRegistryDigest: view.versions.toolRegistryDigest,
        configDigest: view.versions.configDigest,
      },
      status: 'succeeded',
      output: { outcome: 'refunded', refundId: result.output.refundId },
      budget: { toolCalls: view.budget.toolCalls, modelCalls: view.budget.modelCalls },
      lastSeq: events.at(-1)!.seq,
    });
    await keepHistory(handle.workflowId, 'refund-graph-signed-approved-v1');
  });

  it('refuses an order of another customer without any write', async () => {
    const handle = await h.start({ task: { message: 'refund ORD-2001 please', customerId: 'C1001' } });
    const result = (await handle.result()) as {
      status: string;
      output: { outcome: string; message: string };
    };
    expect(result.status).toBe('succeeded');
    expect(result.output.outcome).toBe('refused');
    expect(result.output.message).toContain('ownership_mismatch');
    const view = await handle.query<RunView>('state');
    expect(view.invocations.map((i) => i.tool)).toEqual(['order.read']);
    expect(await historyEventTypes(handle)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
  });

  it('a rejected confirmation ends without a refund', async () => {
    const handle = await h.start({ task: { message: 'refund ORD-1001', customerId: 'C1001' } });
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    // Decide once the wait's timer runs (the run's deadline timer is the first): the decision then
    // cancels it, the shape of history a replay must match.
    await waitForTimers(handle, 2);
    await decide(handle, 'reject', { reason: 'changed my mind' }, waiting);
    const result = (await handle.result()) as { status: string; output: { outcome: string } };
    expect(result).toMatchObject({ status: 'succeeded', output: { outcome: 'declined_by_user' } });
    const view = await handle.query<RunView>('state');
    expect(view.invocations.some((i) => i.tool === 'refund.create')).toBe(false);
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.find((e) => e.type === 'human.decided')?.data).toMatchObject({
      decision: 'rejected',
      actor: TEST_APPROVER,
      code: 'approval.rejected',
      verified: true,
    });
    // The decision ended the wait: its timer was cancelled, never fired.
    const types = await historyEventTypes(handle);
    expect(types).toContain('EVENT_TYPE_TIMER_CANCELED');
    expect(types).not.toContain('EVENT_TYPE_TIMER_FIRED');
    expect(types).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
    await keepHistory(handle.workflowId, 'refund-graph-signed-rejected-v1');
  });

  it('an approval nobody answers expires: a rejection with approval.expired, no refund', async () => {
    const handle = await h.start({
      task: { message: 'refund ORD-1001', customerId: 'C1001' },
      approvalTimeoutSeconds: 2,
    });
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    expect(Date.parse(waiting.pendingAction!.expiresAt!)).toBeGreaterThan(0);
    const result = (await handle.result()) as { status: string; output: { outcome: string } };
    expect(result).toMatchObject({ status: 'succeeded', output: { outcome: 'declined_by_user' } });
    const view = await handle.query<RunView>('state');
    expect(view.invocations.some((i) => i.tool === 'refund.create')).toBe(false);
    expect(view.pendingAction).toBeNull();
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.find((e) => e.type === 'human.decided')?.data).toMatchObject({
      actionId: waiting.pendingAction!.actionId,
      decision: 'rejected',
      actor: 'system',
      code: 'approval.expired',
    });
    // The wait ended on its timer.
    const types = await historyEventTypes(handle);
    expect(types).toContain('EVENT_TYPE_TIMER_FIRED');
    expect(types).not.toContain('EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED');
    expect(types).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
    expect(await h.composition.refundStore.findRefundByKey(`${handle.workflowId}/4`)).toBeUndefined();
    await keepHistory(handle.workflowId, 'refund-graph-approval-expired-v1');
  });

  it('accepts a signed approve signal sent with the Temporal CLI (`temporal workflow signal`)', async () => {
    const { orderId, customerId } = seedDemoOrder(h.composition.refundStore);
    const handle = await h.start({ task: { message: `refund ${orderId}`, customerId } });
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    // Unsigned: refused, the run keeps waiting.
    signalWithTemporalCli(
      handle.workflowId,
      'approve',
      { actionId: waiting.pendingAction!.actionId, actor: 'cli-operator' },
      h.t.namespace,
    );
    const refused = await waitForState(handle, (v) => v.signalRejections.length > 0);
    expect(refused.signalRejections[0]?.code).toBe('decision.unsigned');
    expect(refused.status).toBe('awaiting_confirmation');
    // The same payload with a token signed by a registered approver (`harness approve --print` prints it).
    signalWithTemporalCli(
      handle.workflowId,
      'approve',
      signedPayload(TEST_KEYS.ops, waiting, 'approve', {}, waiting.pendingAction!),
      h.t.namespace,
    );
    const result = (await handle.result()) as { status: string; output: { outcome: string } };
    expect(result).toMatchObject({ status: 'succeeded', output: { outcome: 'refunded' } });
  });

  it('refund.create is unreachable before confirmation_granted (static check)', () => {
    const reachable = reachableNodes(REFUND_GRAPH, 'identify_intent', ['confirmation_granted']);
    expect(reachable.has('create_refund')).toBe(false);
    expect(reachable.has('request_confirmation')).toBe(true);
    expect(reachableNodes(REFUND_GRAPH, 'identify_intent', []).has('create_refund')).toBe(true);
  });
});
