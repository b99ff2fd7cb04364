import { describe, expect, it } from 'vitest';
import type { Observation } from '../../../../src/contract/observation.js';
import { RulesPolicy } from '../../../../src/workflows/policy/index.js';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import { fakeRun, succeeded } from './fake-run.js';

/** Reads allowed; demo.write denied at dispatch. */
const denyWrites = new RulesPolicy({
  name: 'deny_writes',
  version: 'v1',
  customReasonCodes: ['demo.no_writes', 'demo.reads'],
  rules: [
    {
      id: 'no-writes',
      when: { tool: 'demo.write', stage: 'dispatch' },
      decision: 'deny',
      reasonCodes: ['demo.no_writes'],
    },
    { id: 'reads', when: { effect: 'read' }, decision: 'allow', reasonCodes: ['demo.reads'] },
    { id: 'present', when: { stage: 'presentation' }, decision: 'allow', reasonCodes: ['demo.reads'] },
  ],
  default: { decision: 'deny', reasonCodes: ['policy.no_rule_matched'] },
});

/** A profile that makes the given calls in order, collects the observations and succeeds. */
function calls(list: [string, unknown][], seen: Observation[]) {
  return async (ctx: RunContext) => {
    for (const [name, args] of list) seen.push(await ctx.tool(name, args));
    return { output: 'finished' };
  };
}

describe('tool pipeline: rejections before any dispatch', () => {
  it('an unknown tool is a rejection observation; the run goes on', async () => {
    const seen: Observation[] = [];
    const run = fakeRun({
      run: calls(
        [
          ['demo.missing', {}],
          ['demo.read', { id: 'a' }],
        ],
        seen,
      ),
    });
    const final = await run.execute();
    expect(seen[0]).toMatchObject({
      status: 'rejected',
      errorCode: 'tool.unknown',
      toolName: 'demo.missing',
      seq: -1,
    });
    expect(seen[1]?.status).toBe('succeeded');
    expect(run.ports.toolCalls.map((c) => c.tool)).toEqual(['demo.read']);
    expect(final.status).toBe('succeeded');
  });

  it('invalid arguments are a rejection naming the field; nothing is dispatched; the run goes on', async () => {
    const seen: Observation[] = [];
    const run = fakeRun({
      run: calls(
        [
          ['demo.write', { amount: 'ten' }],
          ['demo.write', { amount: 3, extra: 1 }],
          ['demo.write', { amount: 3 }],
        ],
        seen,
      ),
    });
    const final = await run.execute();
    expect(seen[0]).toMatchObject({ status: 'rejected', errorCode: 'tool.invalid_arguments' });
    expect(JSON.stringify(seen[0]?.output)).toContain('amount');
    expect(seen[1]).toMatchObject({ status: 'rejected', errorCode: 'tool.invalid_arguments' });
    expect(seen[2]?.status).toBe('succeeded');
    expect(run.ports.toolCalls).toHaveLength(1);
    expect(run.ports.toolCalls[0]?.seq).toBe(1);
    expect(final.status).toBe('succeeded');
    expect(run.ports.ofType('tool.failed').map((e) => e.data.errorCode)).toEqual([
      'tool.invalid_arguments',
      'tool.invalid_arguments',
    ]);
  });

  it('a tool outside the profile is refused', async () => {
    const seen: Observation[] = [];
    const run = fakeRun({ profileTools: ['demo.read'], run: calls([['demo.write', { amount: 1 }]], seen) });
    await run.execute();
    expect(seen[0]).toMatchObject({ status: 'rejected', errorCode: 'tool.not_in_profile' });
    expect(run.ports.toolCalls).toHaveLength(0);
  });

  it('a deny never reaches callTool; the model-visible observation names the policy reason; the run goes on', async () => {
    const seen: Observation[] = [];
    const run = fakeRun({
      policy: denyWrites,
      run: calls(
        [
          ['demo.write', { amount: 1 }],
          ['demo.read', { id: 'b' }],
        ],
        seen,
      ),
    });
    const final = await run.execute();
    expect(seen[0]).toMatchObject({ status: 'rejected', errorCode: 'policy.denied' });
    expect(seen[0]?.output?.reasonCodes).toContain('demo.no_writes');
    expect(run.ports.toolCalls.map((c) => c.tool)).toEqual(['demo.read']);
    expect(run.ports.ofType('policy.decided').map((e) => [e.data.tool, e.data.decision])).toEqual([
      ['demo.write', 'deny'],
      ['demo.read', 'allow'],
    ]);
    expect(final.invocations.map((i) => i.tool)).toEqual(['demo.read']);
    expect(final.status).toBe('succeeded');
  });

  it('invocation seq numbers are gap-free over dispatched calls and never reused', async () => {
    const seen: Observation[] = [];
    const run = fakeRun({
      run: calls(
        [
          ['demo.read', { id: 'a' }],
          ['demo.x', {}],
          ['demo.read', { id: 'b' }],
          ['demo.write', { amount: 2 }],
        ],
        seen,
      ),
    });
    await run.execute();
    expect(run.ports.toolCalls.map((c) => [c.seq, c.idempotencyKey])).toEqual([
      [1, 'run-1/1'],
      [2, 'run-1/2'],
      [3, 'run-1/3'],
    ]);
  });
});

describe('tool pipeline: tool activity outcomes', () => {
  it('a failed activity is a failed_terminal observation; the run goes on', async () => {
    const seen: Observation[] = [];
    const run = fakeRun({
      tool: (i) => (i.seq === 1 ? { kind: 'failed', code: 'demo.broken', message: 'no' } : succeeded(i)),
      run: calls(
        [
          ['demo.read', { id: 'a' }],
          ['demo.read', { id: 'b' }],
        ],
        seen,
      ),
    });
    const final = await run.execute();
    expect(seen[0]).toMatchObject({ status: 'failed_terminal', errorCode: 'demo.broken' });
    expect(final.invocations.map((i) => i.status)).toEqual(['failed_terminal', 'succeeded']);
    expect(final.status).toBe('succeeded');
  });

  it('a lost read is interrupted and may be requested again (a new seq)', async () => {
    const seen: Observation[] = [];
    const run = fakeRun({
      tool: (i) => (i.seq === 1 ? { kind: 'lost', message: 'activity timed out' } : succeeded(i)),
      run: calls(
        [
          ['demo.read', { id: 'a' }],
          ['demo.read', { id: 'a' }],
        ],
        seen,
      ),
    });
    const final = await run.execute();
    expect(seen[0]).toMatchObject({ status: 'interrupted', errorCode: 'tool.interrupted', seq: 1 });
    expect(seen[1]).toMatchObject({ status: 'succeeded', seq: 2 });
    expect(run.ports.resolutions).toHaveLength(0);
    expect(final.invocations.map((i) => i.status)).toEqual(['interrupted', 'succeeded']);
  });

  it('a lost write with its result recorded settles from the evidence store, never dispatched again', async () => {
    const seen: Observation[] = [];
    const run = fakeRun({
      tool: () => ({ kind: 'lost', message: 'worker lost' }),
      resolve: (i) => {
        const outcome = succeeded(i);
        if (outcome.kind !== 'completed') throw new Error('unreachable');
        return { kind: 'result_recorded', result: outcome.result };
      },
      run: calls([['demo.write', { amount: 5 }]], seen),
    });
    const final = await run.execute();
    expect(seen[0]).toMatchObject({ status: 'succeeded', externalId: 'X1' });
    expect(final.invocations[0]).toMatchObject({
      status: 'succeeded',
      resolvedBy: 'evidence_store',
      externalId: 'X1',
    });
    expect(final.artifacts.map((a) => a.id)).toEqual(['run-1/1/thing']);
    expect(run.ports.toolCalls).toHaveLength(1);
    expect(run.ports.resolutions.map((r) => r.seq)).toEqual([1]);
  });

  it('a lost write without an intent was not applied', async () => {
    const seen: Observation[] = [];
    const run = fakeRun({
      tool: () => ({ kind: 'lost', message: 'x' }),
      resolve: () => ({ kind: 'no_intent' }),
      run: calls([['demo.write', { amount: 5 }]], seen),
    });
    const final = await run.execute();
    expect(seen[0]).toMatchObject({ status: 'failed_terminal', errorCode: 'tool.not_applied' });
    expect(final.invocations[0]).toMatchObject({ status: 'not_applied', resolvedBy: 'evidence_store' });
    expect(run.ports.toolCalls).toHaveLength(1);
  });

  it('a lost write the reconciler finds applied (or not) is settled by the reconciler', async () => {
    const seenA: Observation[] = [];
    const a = fakeRun({
      tool: () => ({ kind: 'lost', message: 'x' }),
      resolve: (i) => {
        const o = succeeded(i);
        if (o.kind !== 'completed') throw new Error('unreachable');
        return { kind: 'reconciled_succeeded', result: o.result };
      },
      run: calls([['demo.write', { amount: 5 }]], seenA),
    });
    expect((await a.execute()).invocations[0]).toMatchObject({
      status: 'succeeded',
      resolvedBy: 'reconciler',
    });
    expect(seenA[0]?.status).toBe('succeeded');
    const seenB: Observation[] = [];
    const b = fakeRun({
      tool: () => ({ kind: 'lost', message: 'x' }),
      resolve: () => ({ kind: 'reconciled_not_applied' }),
      run: calls([['demo.write', { amount: 5 }]], seenB),
    });
    expect((await b.execute()).invocations[0]).toMatchObject({
      status: 'not_applied',
      resolvedBy: 'reconciler',
    });
    expect(seenB[0]?.errorCode).toBe('tool.not_applied');
  });

  it('an unknown write outcome waits for a person (awaiting_human / unknown_write_outcome) and takes a reconcile signal', async () => {
    const seen: Observation[] = [];
    const run = fakeRun({
      tool: () => ({ kind: 'lost', message: 'x' }),
      resolve: () => ({ kind: 'unknown' }),
      run: calls([['demo.write', { amount: 5 }]], seen),
    });
    const done = run.execute();
    await run.ports.untilWaiting();
    expect(run.state.status).toBe('awaiting_human');
    expect(run.state.waitingReason).toBe('unknown_write_outcome');
    expect(run.state.pendingAction).toMatchObject({
      kind: 'reconcile',
      invocationSeq: 1,
      tool: 'demo.write',
    });
    expect(run.state.humanRequest?.decisionType).toBe('unknown_write_outcome');
    expect(run.state.invocations[0]?.status).toBe('outcome_unknown');
    expect(run.ports.waits.at(-1)?.timeoutMs).toBeUndefined();
    run.runner.gate.receive('reconcile', { invocationSeq: 9, outcome: 'succeeded', actor: 'ops' });
    run.runner.gate.receive('approve', { actionId: 'reconcile-1', actor: 'ops' });
    run.runner.gate.receive('reconcile', { invocationSeq: 1, outcome: 'maybe', actor: 'ops' });
    await run.ports.settle();
    expect(run.state.status).toBe('awaiting_human');
    run.runner.gate.receive('reconcile', {
      invocationSeq: 1,
      outcome: 'succeeded',
      actor: 'ops',
      evidence: { ticket: 'T-1' },
    });
    const final = await done;
    expect(seen[0]).toMatchObject({
      status: 'succeeded',
      output: { reconciledBy: 'ops', evidence: { ticket: 'T-1' } },
    });
    expect(final.invocations[0]).toMatchObject({ status: 'succeeded', resolvedBy: 'operator:ops' });
    expect(run.ports.ofType('human.signal_rejected').map((e) => e.data.code)).toEqual([
      'signal.action_mismatch',
      'signal.no_pending_action',
      'signal.malformed',
    ]);
    expect(run.ports.toolCalls).toHaveLength(1);
    expect(final.status).toBe('succeeded');
  });

  it('an operator reporting the unknown write as not applied or failed settles it that way', async () => {
    for (const outcome of ['not_applied', 'failed'] as const) {
      const seen: Observation[] = [];
      const run = fakeRun({
        tool: () => ({ kind: 'lost', message: 'x' }),
        resolve: () => ({ kind: 'unknown' }),
        run: calls([['demo.write', { amount: 5 }]], seen),
      });
      const done = run.execute();
      await run.ports.untilWaiting();
      run.runner.gate.receive('reconcile', { invocationSeq: 1, outcome, actor: 'ops' });
      const final = await done;
      expect(final.invocations[0]?.status).toBe(outcome === 'failed' ? 'failed_terminal' : 'not_applied');
      expect(seen[0]).toMatchObject({ status: 'failed_terminal', errorCode: `tool.${outcome}` });
    }
  });

  it('a cancelled read ends the run as cancelled; the read is interrupted', async () => {
    const run = fakeRun({
      tool: () => ({ kind: 'cancelled' }),
      run: calls([['demo.read', { id: 'a' }]], []),
    });
    const final = await run.execute();
    expect(final.status).toBe('cancelled');
    expect(final.terminalReason?.code).toBe('run.cancelled');
    expect(final.invocations[0]?.status).toBe('interrupted');
    expect(run.ports.resolutions).toHaveLength(0);
  });

  it('a write cancelled in flight is settled from the evidence store before the run ends cancelled', async () => {
    const outcomes = [
      { resolve: 'result_recorded', status: 'succeeded', resolvedBy: 'evidence_store', artifacts: 1 },
      { resolve: 'no_intent', status: 'not_applied', resolvedBy: 'evidence_store', artifacts: 0 },
      { resolve: 'reconciled_not_applied', status: 'not_applied', resolvedBy: 'reconciler', artifacts: 0 },
      { resolve: 'unknown', status: 'outcome_unknown', resolvedBy: undefined, artifacts: 0 },
    ] as const;
    for (const o of outcomes) {
      const run = fakeRun({
        tool: () => ({ kind: 'cancelled' }),
        resolve: (i) => {
          if (o.resolve !== 'result_recorded') return { kind: o.resolve };
          const done = succeeded(i);
          if (done.kind !== 'completed') throw new Error('unreachable');
          return { kind: 'result_recorded', result: done.result };
        },
        run: calls([['demo.write', { amount: 5 }]], []),
      });
      const final = await run.execute();
      expect(final.status).toBe('cancelled');
      expect(final.invocations[0]?.status).toBe(o.status);
      expect(final.invocations[0]?.resolvedBy).toBe(o.resolvedBy);
      expect(final.artifacts).toHaveLength(o.artifacts);
      expect(run.ports.toolCalls).toHaveLength(1);
      expect(run.ports.resolutions).toHaveLength(1);
    }
  });
});
