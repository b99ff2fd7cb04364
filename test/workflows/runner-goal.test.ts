import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelScript } from '../../src/activities/model/scripted-script.js';
import { ScriptedProvider } from '../../src/activities/model/scripted-provider.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { loadRunPackages } from '../../src/activities/context/run-metrics.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { createHarnessFixture, historyEventTypes, type HarnessFixture } from '../support/harness.js';
import { callAt, scheduledActivities, textAt } from './runner-support.js';
import { approvePending } from '../support/decisions.js';
import { testRunId } from '../support/run-id.js';

const ASSISTANT = { name: 'refund.assistant', version: 'v1' };
const SUPPORT = { name: 'support.answer', version: 'v1' };
const RULES = { name: 'refund.rules', version: 'v1' };

/** order.read, logistics.read, policy.search.refund, refund.create (steps 0..3). */
const READS_AND_CREATE = [
  callAt(0, 'order.read', { orderId: 'ORD-1001' }),
  callAt(1, 'logistics.read', { orderId: 'ORD-1001' }),
  callAt(2, 'policy.search.refund', { orderStatus: 'paid', logisticsStatus: 'not_shipped' }),
  callAt(3, 'refund.create', { orderId: 'ORD-1001', amountCents: 100, reason: 'not shipped after 72 hours' }),
];

/** The scripted route of this file: selected by what the model has just seen. */
const SCRIPT: ModelScript = {
  entries: [
    // deny: refund.create before ownership is verified (refund.rules@v1)
    {
      match: { step: 0, contains: 'DENY-CASE' },
      response: {
        text: '',
        toolCalls: [
          {
            name: 'refund.create',
            version: 'v1',
            args: { orderId: 'ORD-1001', amountCents: 100, reason: 'x' },
          },
        ],
      },
    },
    {
      match: { step: 1, contains: 'policy.denied' },
      response: { text: 'the policy refused the refund', toolCalls: [] },
    },
    // invalid arguments
    {
      match: { step: 0, contains: 'INVALID-CASE' },
      response: {
        text: '',
        toolCalls: [{ name: 'order.read', version: 'v1', args: { orderId: 'not an id!' } }],
      },
    },
    {
      match: { step: 1, contains: 'tool.invalid_arguments' },
      response: { text: 'the order id was invalid; please send a valid one', toolCalls: [] },
    },
    // duplicate calls
    {
      match: { contains: 'DUP-CASE' },
      response: {
        text: '',
        toolCalls: [{ name: 'order.read', version: 'v1', args: { orderId: 'ORD-1004' } }],
      },
    },
    {
      match: { contains: '"orderId":"ORD-1004"' },
      response: {
        text: '',
        toolCalls: [{ name: 'order.read', version: 'v1', args: { orderId: 'ORD-1004' } }],
      },
    },
    // unverified claim: the refund sequence without refund.verify, then "refund done"
    ...READS_AND_CREATE,
    textAt(4, 'refund done'),
  ],
  fallback: { text: 'unexpected', toolCalls: [] },
};

describe('agentRun with a goal profile on the real server', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('runner-goal', { scripts: { 'scripted/test': SCRIPT } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('runs the refund tool sequence to a verified success after a person approves (refund.assistant@v1, its default refund.assisted@v1)', async () => {
    const workflowId = testRunId('runner-goal-success');
    // refund.create is idempotent by `${runId}/${seq}`: pre-create the refund it will return so the
    // script can name its id in refund.verify (a scripted model cannot read ids).
    const { refund } = await h.composition.refundStore.createRefund({
      orderId: 'ORD-1001',
      amountCents: 100,
      reason: 'not shipped after 72 hours',
      idempotencyKey: `${workflowId}/4`,
    });
    const route = `scripted/success-${Date.now()}`;
    h.composition.models.register(
      route,
      new ScriptedProvider({
        entries: [
          ...READS_AND_CREATE,
          callAt(4, 'refund.verify', {
            refundId: refund.id,
            expectedOrderId: 'ORD-1001',
            expectedAmountCents: 100,
          }),
          textAt(5, `refund ${refund.id} done and verified`),
        ],
      }),
      'scripted',
    );
    const handle = await h.start(
      {
        profile: ASSISTANT,
        modelRoute: route,
        task: { message: 'Refund ORD-1001 please' },
      },
      workflowId,
    );
    // refund.assisted@v1: the refund the model proposed waits for a person.
    const asked = await approvePending(handle);
    expect(asked.pendingAction).toMatchObject({ kind: 'human', tool: 'refund.create' });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    expect(result.output).toBe(`refund ${refund.id} done and verified`);
    expect(result.terminalReason).toBeNull();
    const view = await handle.query<RunView>('state');
    expect(view.invocations.map((i) => [i.seq, i.tool, i.status])).toEqual([
      [1, 'order.read', 'succeeded'],
      [2, 'logistics.read', 'succeeded'],
      [3, 'policy.search.refund', 'succeeded'],
      [4, 'refund.create', 'succeeded'],
      [5, 'refund.verify', 'succeeded'],
    ]);
    expect(view.budget).toMatchObject({ modelCalls: 6, toolCalls: 5, steps: 11 });
    expect(view.artifacts.some((a) => a.provenance === 'verified' && a.type === 'refund.verification')).toBe(
      true,
    );
    const events = await h.composition.store.listEvents(workflowId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.find((e) => e.type === 'eval.completed')?.data).toMatchObject({
      passed: true,
      evaluator: 'action_with_verification/v1',
    });
    expect(events.at(-2)?.type).toBe('run.completed');
    expect(events.at(-1)?.type).toBe('run.sealed');
    const activities = await scheduledActivities(handle);
    expect(activities.filter((a) => a.type === 'callModelV3')).toHaveLength(6);
    expect(activities.filter((a) => a.type === 'runToolV3').map((a) => a.tool)).toEqual([
      'order.read',
      'logistics.read',
      'policy.search.refund',
      'refund.create',
      'refund.verify',
    ]);
  });

  it('a deny schedules no activity for the denied tool; the model sees the rejection and the run goes on', async () => {
    const handle = await h.start({
      profile: ASSISTANT,
      policy: RULES,
      modelRoute: 'scripted/test',
      task: { message: 'DENY-CASE refund ORD-1001' },
    });
    const result = (await handle.result()) as AgentRunResult;
    // The run went on: a second model call answered the rejection. No refund was made, so the
    // refund profile's completion contract fails.
    expect(result.output).toBe('the policy refused the refund');
    expect(result.status).toBe('failed');
    expect(result.terminalReason?.code).toBe('completion.not_satisfied');
    const activities = await scheduledActivities(handle);
    expect(activities.filter((a) => a.type === 'runToolV3')).toEqual([]);
    expect(activities.filter((a) => a.type === 'callModelV3')).toHaveLength(2);
    const groups = await h.composition.store.listMessageGroups(handle.workflowId);
    expect(JSON.stringify(groups[1]?.messages)).toContain('policy.denied');
    expect(JSON.stringify(groups[1]?.messages)).toContain('refund.owner_not_verified');
    const events = await h.composition.store.listEvents(handle.workflowId);
    const denied = events.find((e) => e.type === 'policy.decided')?.data;
    expect(denied).toMatchObject({ tool: 'refund.create', decision: 'deny' });
    // No policy bundle pinned: the rules that decided are the policy in code the decision names.
    expect(denied?.rules).toEqual({ source: 'code', policy: denied?.policyVersion });
    expect(await historyEventTypes(handle)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
  });

  it('invalid arguments reach the model as a rejection and the run goes on to success', async () => {
    const handle = await h.start({
      profile: SUPPORT,
      modelRoute: 'scripted/test',
      task: { message: 'INVALID-CASE where is my order' },
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    expect(result.output).toBe('the order id was invalid; please send a valid one');
    expect((await scheduledActivities(handle)).filter((a) => a.type === 'runToolV3')).toEqual([]);
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.find((e) => e.type === 'tool.failed')?.data).toMatchObject({
      tool: 'order.read',
      status: 'rejected',
      errorCode: 'tool.invalid_arguments',
    });
    // HARNESS_RECORD_HISTORIES=<dir> keeps it as a replay fixture: a goal run with the start features
    // of issue 41 (decision rules, tool definition pin, model context ref).
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'support-start-features-41-v1');
    // Each answered call names the context package it sent; the package is in the store under it.
    const completed = events.filter((e) => e.type === 'model.completed');
    expect(completed).toHaveLength(2);
    for (const e of completed) {
      const context = e.data.context as { packageId: string; digest: string };
      expect(context.packageId).toBe(`${handle.workflowId}:ctx${String(e.data.callSeq)}`);
      const pkg = (await loadRunPackages(h.composition.store, handle.workflowId))[
        Number(e.data.callSeq) - 1
      ] as { packageId: string };
      expect(pkg.packageId).toBe(context.packageId);
      expect(context.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });

  it('the duplicate-call detector ends the run as budget_exhausted (duplicate_call)', async () => {
    const handle = await h.start({
      profile: SUPPORT,
      modelRoute: 'scripted/test',
      task: { message: 'DUP-CASE' },
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('budget_exhausted');
    expect(result.terminalReason?.code).toBe('budget.duplicate_call');
    expect(result.terminalReason?.details).toMatchObject({ budget: 'duplicate_call', limit: 2, used: 2 });
    expect((await scheduledActivities(handle)).filter((a) => a.type === 'runToolV3')).toHaveLength(2);
  });

  it('"refund done" without refund.verify is blocked by the output guardrail; the run fails', async () => {
    const handle = await h.start({
      profile: ASSISTANT,
      modelRoute: 'scripted/test',
      task: { message: 'Refund ORD-1001' },
    });
    await approvePending(handle);
    const result = (await handle.result()) as AgentRunResult;
    // The claim never leaves: the output guardrail blocks it before completion is judged.
    expect(result.output).toBeNull();
    expect(result.status).toBe('failed');
    expect(result.terminalReason?.code).toBe('guardrail.output_blocked');
    const view = await handle.query<RunView>('state');
    expect(view.invocations.map((i) => i.tool)).toEqual([
      'order.read',
      'logistics.read',
      'policy.search.refund',
      'refund.create',
    ]);
    const events = await h.composition.store.listEvents(handle.workflowId);
    const checked = events.find((e) => e.type === 'guardrail.output_checked')?.data as {
      verdict: string;
      reasonCodes: string[];
    };
    expect(checked.verdict).toBe('block');
    expect(checked.reasonCodes).toContain('guardrail.output.unsupported_claim');
    expect(events.map((e) => e.type)).not.toContain('run.completed');
  });
});
