import { describe, expect, it } from 'vitest';
import type { Observation } from '../../../../src/contract/observation.js';
import { RulesPolicy } from '../../../../src/workflows/policy/index.js';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import { fakeRun } from './fake-run.js';

/** demo.write needs a confirmation at dispatch; reads are allowed. */
const confirmWrites = new RulesPolicy({
  name: 'confirm_writes',
  version: 'v1',
  customReasonCodes: ['demo.confirm', 'demo.reads'],
  rules: [
    {
      id: 'confirm',
      when: { tool: 'demo.write', stage: 'dispatch' },
      decision: 'require_confirmation',
      reasonCodes: ['demo.confirm'],
      obligations: ['confirm.user.v1'],
    },
    { id: 'all', when: {}, decision: 'allow', reasonCodes: ['demo.reads'] },
  ],
  default: { decision: 'deny', reasonCodes: ['policy.no_rule_matched'] },
});

function writes(amounts: number[], seen: Observation[]) {
  return async (ctx: RunContext) => {
    for (const amount of amounts) seen.push(await ctx.tool('demo.write', { amount }));
    return { output: 'finished' };
  };
}

async function waitingRun(amounts = [7], approvalTimeoutSeconds = 600) {
  const seen: Observation[] = [];
  const run = fakeRun({ policy: confirmWrites, approvalTimeoutSeconds, run: writes(amounts, seen) });
  const done = run.execute();
  await run.ports.untilWaiting();
  return { run, seen, done };
}

describe('human gate: require_confirmation', () => {
  it('waits in awaiting_confirmation with an action bound to tool, version and argument digest; nothing dispatched', async () => {
    const { run, done } = await waitingRun();
    const s = run.state;
    expect(s.status).toBe('awaiting_confirmation');
    expect(s.waitingReason).toBe('confirmation_required');
    expect(s.pendingAction).toMatchObject({
      kind: 'confirmation',
      tool: 'demo.write',
      version: 'v1',
      obligations: ['confirm.user.v1'],
    });
    expect(s.pendingAction?.argsDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(s.pendingAction?.expiresAt).toBe('2026-01-01T00:10:00.000Z');
    expect(s.humanRequest).toMatchObject({
      decisionType: 'demo.confirm',
      allowedDecisions: ['approve', 'reject'],
      expiresAt: '2026-01-01T00:10:00.000Z',
    });
    expect(run.ports.toolCalls).toHaveLength(0);
    expect(run.ports.waits.at(-1)?.timeoutMs).toBe(600_000);
    // Events up to the pause are flushed before waiting (checkpoint before pause).
    expect(run.ports.typesOf()).toContain('human.requested');
    expect(run.ports.typesOf().at(-1)).toBe('checkpoint.saved');
    run.runner.gate.receive('approve', { actionId: s.pendingAction!.actionId, actor: 'ops' });
    const final = await done;
    expect(final.status).toBe('succeeded');
    expect(run.ports.toolCalls).toHaveLength(1);
    expect(final.pendingAction).toBeNull();
    expect(run.ports.ofType('human.decided')[0]?.data).toMatchObject({ decision: 'approved', actor: 'ops' });
  });

  it('a reject turns into a rejection observation (approval.rejected); nothing dispatched; the run goes on', async () => {
    const { run, seen, done } = await waitingRun();
    run.runner.gate.receive('reject', {
      actionId: run.state.pendingAction!.actionId,
      actor: 'customer',
      reason: 'no thanks',
    });
    const final = await done;
    expect(seen[0]).toMatchObject({
      status: 'rejected',
      errorCode: 'approval.rejected',
      errorMessage: 'no thanks',
    });
    expect(run.ports.toolCalls).toHaveLength(0);
    expect(final.status).toBe('succeeded');
  });

  it('an expired approval is a rejection with approval.expired', async () => {
    const { run, seen, done } = await waitingRun([7], 30);
    expect(run.ports.waits.at(-1)?.timeoutMs).toBe(30_000);
    run.ports.expireWait();
    const final = await done;
    expect(seen[0]).toMatchObject({ status: 'rejected', errorCode: 'approval.expired' });
    expect(run.ports.ofType('human.decided')[0]?.data).toMatchObject({
      decision: 'rejected',
      actor: 'system',
      code: 'approval.expired',
    });
    expect(run.ports.toolCalls).toHaveLength(0);
    expect(final.status).toBe('succeeded');
  });

  it('forged, malformed, wrong-kind and duplicate signals change nothing and are recorded as human.signal_rejected', async () => {
    const { run, done } = await waitingRun();
    const before = {
      status: run.state.status,
      version: run.state.stateVersion,
      action: run.state.pendingAction,
    };
    const gate = run.runner.gate;
    gate.receive('approve', { actionId: 'act-forged', actor: 'mallory' });
    gate.receive('approve', { actor: 'no-action-id' });
    gate.receive('approve', 'not an object');
    gate.receive('reject', { actionId: before.action!.actionId, actor: 'x' }); // reason missing
    gate.receive('reconcile', { invocationSeq: 1, outcome: 'succeeded', actor: 'ops' });
    gate.receive('provideInput', { slot: 'x', value: 'y', actor: 'ops' });
    await run.ports.settle();
    expect(run.state.status).toBe(before.status);
    expect(run.state.stateVersion).toBe(before.version);
    expect(run.state.pendingAction).toEqual(before.action);
    expect(run.ports.toolCalls).toHaveLength(0);
    gate.receive('approve', { actionId: before.action!.actionId, actor: 'ops' });
    gate.receive('reject', { actionId: before.action!.actionId, actor: 'ops2', reason: 'late' }); // duplicate decision
    const final = await done;
    expect(final.status).toBe('succeeded');
    expect(run.ports.toolCalls).toHaveLength(1);
    const rejected = run.ports.ofType('human.signal_rejected').map((e) => [e.data.signal, e.data.code]);
    expect(rejected).toEqual([
      ['approve', 'signal.action_mismatch'],
      ['approve', 'signal.malformed'],
      ['approve', 'signal.malformed'],
      ['reject', 'signal.malformed'],
      ['reconcile', 'signal.no_pending_action'],
      ['provideInput', 'signal.no_pending_action'],
      ['reject', 'signal.duplicate'],
    ]);
    expect(run.ports.ofType('human.decided')[0]?.data).toMatchObject({ decision: 'approved', actor: 'ops' });
  });

  it('a stale approval (for an earlier action) does not approve the next one', async () => {
    const { run, seen, done } = await waitingRun([7, 8]);
    const first = run.state.pendingAction!.actionId;
    run.runner.gate.receive('approve', { actionId: first, actor: 'ops' });
    for (let i = 0; i < 100 && run.state.pendingAction?.actionId === first; i++) await run.ports.settle();
    await run.ports.untilWaiting();
    const second = run.state.pendingAction!.actionId;
    expect(second).not.toBe(first);
    run.runner.gate.receive('approve', { actionId: first, actor: 'ops' });
    await run.ports.settle();
    expect(run.state.status).toBe('awaiting_confirmation');
    expect(run.ports.toolCalls).toHaveLength(1);
    run.runner.gate.receive('reject', { actionId: second, actor: 'ops', reason: 'not this one' });
    await done;
    expect(seen.map((o) => o.status)).toEqual(['succeeded', 'rejected']);
    expect(run.ports.ofType('human.signal_rejected').map((e) => e.data.code)).toEqual([
      'signal.action_mismatch',
    ]);
  });

  it('an approval request expires with the policy decision when that is earlier than the approval timeout', async () => {
    const shortLived = new RulesPolicy({
      name: 'short_lived',
      version: 'v1',
      customReasonCodes: ['demo.confirm'],
      rules: [
        {
          id: 'confirm',
          when: { tool: 'demo.write', stage: 'dispatch' },
          decision: 'require_confirmation',
          reasonCodes: ['demo.confirm'],
          expiresInSeconds: 60,
        },
        { id: 'all', when: {}, decision: 'allow', reasonCodes: ['demo.confirm'] },
      ],
      default: { decision: 'deny', reasonCodes: ['policy.no_rule_matched'] },
    });
    const seen: Observation[] = [];
    const run = fakeRun({ policy: shortLived, approvalTimeoutSeconds: 600, run: writes([7], seen) });
    const done = run.execute();
    await run.ports.untilWaiting();
    expect(run.state.pendingAction?.expiresAt).toBe('2026-01-01T00:01:00.000Z');
    expect(run.ports.waits.at(-1)?.timeoutMs).toBe(60_000);
    run.ports.expireWait();
    await done;
    expect(seen[0]).toMatchObject({ status: 'rejected', errorCode: 'approval.expired' });
    expect(run.ports.toolCalls).toHaveLength(0);
  });

  it('a signal when nothing waits is rejected', async () => {
    const run = fakeRun({ run: () => Promise.resolve({ output: 'x' }) });
    run.runner.gate.receive('approve', { actionId: 'a', actor: 'b' });
    await run.execute();
    expect(run.ports.ofType('human.signal_rejected').map((e) => e.data.code)).toEqual([
      'signal.no_pending_action',
    ]);
  });

  it('a cancelRun signal while waiting ends the run as cancelled; a second one is a duplicate', async () => {
    const { run, done } = await waitingRun();
    run.runner.gate.receive('cancelRun', { actor: 'ops', reason: 'stop' });
    run.runner.gate.receive('cancelRun', { actor: 'ops', reason: 'stop again' });
    const final = await done;
    expect(final.status).toBe('cancelled');
    expect(final.terminalReason?.message).toContain('cancelled by ops: stop');
    expect(final.pendingAction).toBeNull();
    expect(run.ports.toolCalls).toHaveLength(0);
    expect(run.ports.ofType('human.signal_rejected').map((e) => e.data.code)).toEqual(['signal.duplicate']);
  });

  it('askInput waits for provideInput on the named slot', async () => {
    const run = fakeRun({ run: async (ctx) => ({ output: await ctx.askInput('orderId', 'which order?') }) });
    const done = run.execute();
    await run.ports.untilWaiting();
    expect(run.state.status).toBe('awaiting_input');
    expect(run.state.waitingReason).toBe('input_required:orderId');
    run.runner.gate.receive('provideInput', { slot: 'other', value: 'x', actor: 'u' });
    run.runner.gate.receive('provideInput', { slot: 'orderId', value: 'ORD-1', actor: 'u' });
    const final = await done;
    expect(final.output).toBe('ORD-1');
    expect(run.ports.ofType('human.signal_rejected').map((e) => e.data.code)).toEqual([
      'signal.action_mismatch',
    ]);
  });
});
