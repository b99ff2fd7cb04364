import { describe, expect, it } from 'vitest';
import type { Observation } from '../../../../src/contract/observation.js';
import { TOOL_NOT_STARTED } from '../../../../src/contract/failure-types.js';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import type { ToolActivityOutcome, ToolCallInput } from '../../../../src/workflows/runner/ports.js';
import { MAX_WRITE_ATTEMPTS } from '../../../../src/workflows/runner/write-recovery.js';
import { fakeRun, succeeded } from './fake-run.js';

/** A profile that makes the given calls in order, collects the observations and succeeds. */
function calls(list: [string, unknown][], seen: Observation[]) {
  return async (ctx: RunContext) => {
    for (const [name, args] of list) seen.push(await ctx.tool(name, args));
    return { output: 'finished' };
  };
}

const WRITE: [string, unknown][] = [['demo.write', { amount: 5 }]];
const lost = (): ToolActivityOutcome => ({ kind: 'lost', message: 'activity timed out (heartbeat)' });
const notStarted = (): ToolActivityOutcome => ({
  kind: 'failed',
  code: TOOL_NOT_STARTED,
  message: 'demo.write@v1 #1 did not start: StoreError: PostgreSQL is unavailable',
});

/** The recovery decisions stored (once each: a failed activity's events are sent again, the store keeps one). */
function decisions(run: ReturnType<typeof fakeRun>) {
  const stored = new Map(run.ports.ofType('recovery.decided').map((e) => [e.sequence, e]));
  return [...stored.values()].map((e) => ({
    attempt: e.data.attempt,
    decision: e.data.decision,
    reason: e.data.reason,
  }));
}

describe('write recovery: effectively once (seed 004 retry_attempt)', () => {
  it('a write the reconciler finds not applied runs again under the same idempotency key, and succeeds', async () => {
    const seen: Observation[] = [];
    let n = 0;
    const run = fakeRun({
      writeRecovery: true,
      tool: (i) => (++n === 1 ? lost() : succeeded(i)),
      resolve: () => ({ kind: 'reconciled_not_applied' }),
      run: calls(WRITE, seen),
    });
    const final = await run.execute();
    expect(final.status).toBe('succeeded');
    expect(seen[0]).toMatchObject({ status: 'succeeded', seq: 1 });
    expect(final.invocations).toHaveLength(1);
    expect(final.invocations[0]).toMatchObject({ seq: 1, status: 'succeeded' });
    const [first, second] = run.ports.toolCalls as [ToolCallInput, ToolCallInput];
    expect(run.ports.toolCalls).toHaveLength(2);
    expect(first.attempt).toBeUndefined();
    expect(second).toMatchObject({ seq: 1, attempt: 2, idempotencyKey: first.idempotencyKey });
    expect(second.argsDigest).toBe(first.argsDigest);
    expect(decisions(run)).toEqual([
      { attempt: 1, decision: 'reconcile', reason: 'tool.outcome_unknown' },
      { attempt: 2, decision: 'retry_attempt', reason: 'not_applied:reconciler' },
    ]);
    expect(run.ports.sleeps).toEqual([2000]);
  });

  it('a write that failed before its executor ran is tried again after a pause', async () => {
    let n = 0;
    const run = fakeRun({
      writeRecovery: true,
      tool: (i) => (++n <= 2 ? notStarted() : succeeded(i)),
      run: calls(WRITE, []),
    });
    const final = await run.execute();
    expect(final.invocations[0]?.status).toBe('succeeded');
    expect(run.ports.toolCalls.map((c) => c.attempt)).toEqual([undefined, 2, 3]);
    expect(decisions(run)).toEqual([
      { attempt: 2, decision: 'retry_attempt', reason: TOOL_NOT_STARTED },
      { attempt: 3, decision: 'retry_attempt', reason: TOOL_NOT_STARTED },
    ]);
    expect(run.ports.sleeps).toEqual([2000, 4000]);
    expect(run.ports.resolutions).toHaveLength(0);
  });

  it(`runs from before the exhaustion patch give up after ${MAX_WRITE_ATTEMPTS} attempts with a fail decision`, async () => {
    const seen: Observation[] = [];
    const run = fakeRun({
      writeRecovery: true,
      tool: lost,
      resolve: () => ({ kind: 'no_intent' }),
      run: calls(WRITE, seen),
    });
    const final = await run.execute();
    expect(run.ports.toolCalls).toHaveLength(MAX_WRITE_ATTEMPTS);
    expect(final.invocations[0]?.status).toBe('not_applied');
    expect(seen[0]).toMatchObject({ status: 'failed_terminal', errorCode: 'tool.not_applied' });
    expect(decisions(run).at(-1)).toEqual({
      attempt: MAX_WRITE_ATTEMPTS,
      decision: 'fail',
      reason: 'tool.attempts_exhausted',
    });
  });

  describe(`once ${MAX_WRITE_ATTEMPTS} attempts ran out, a person decides (never a refusal by itself)`, () => {
    /** A run whose every attempt is settled not applied (or does not start) until the person answers. */
    async function exhaust(tool: () => ToolActivityOutcome, outcome: 'not_applied' | 'failed' | 'succeeded') {
      let personAnswered = false;
      const seen: Observation[] = [];
      const run = fakeRun({
        writeRecovery: true,
        writeExhaustion: true,
        tool: (i) => (personAnswered ? succeeded(i) : tool()),
        resolve: () => ({ kind: 'no_intent' }),
        run: calls(WRITE, seen),
      });
      const done = run.execute();
      await run.ports.untilWaiting();
      const waiting = {
        status: run.state.status,
        waitingReason: run.state.waitingReason,
        calls: run.ports.toolCalls.length,
        request: run.state.humanRequest,
      };
      personAnswered = true;
      run.runner.gate.receive('reconcile', {
        invocationSeq: 1,
        outcome,
        actor: 'ops',
        ...(outcome === 'succeeded' ? { externalId: 'R-by-hand' } : {}),
      });
      return { run, seen, waiting, final: await done };
    }

    it('the run waits with write_attempts_exhausted after the last attempt, naming the last reason', async () => {
      const { waiting, run } = await exhaust(lost, 'failed');
      expect(waiting).toMatchObject({
        status: 'awaiting_human',
        waitingReason: 'write_attempts_exhausted',
        calls: MAX_WRITE_ATTEMPTS,
        request: { decisionType: 'write_attempts_exhausted', riskReasons: ['write_attempts_exhausted'] },
      });
      expect(
        decisions(run)
          .filter((d) => d.decision === 'await_human')
          .at(-1),
      ).toEqual({
        attempt: MAX_WRITE_ATTEMPTS,
        decision: 'await_human',
        reason: 'tool.attempts_exhausted',
      });
      expect(decisions(run).map((d) => d.decision)).not.toContain('fail');
    });

    it('not_applied from the person runs one more attempt under the same idempotency key, and it succeeds', async () => {
      const { run, final, seen } = await exhaust(lost, 'not_applied');
      expect(run.ports.toolCalls).toHaveLength(MAX_WRITE_ATTEMPTS + 1);
      expect(new Set(run.ports.toolCalls.map((c) => c.idempotencyKey)).size).toBe(1);
      expect(run.ports.toolCalls.at(-1)?.attempt).toBe(MAX_WRITE_ATTEMPTS + 1);
      expect(final.invocations[0]?.status).toBe('succeeded');
      expect(seen[0]).toMatchObject({ status: 'succeeded' });
      expect(decisions(run).at(-1)).toMatchObject({
        attempt: MAX_WRITE_ATTEMPTS + 1,
        decision: 'retry_attempt',
        reason: 'not_applied:operator:ops',
      });
    });

    it('the same after attempts that never started (the store stayed down)', async () => {
      const { run, waiting, final } = await exhaust(notStarted, 'not_applied');
      expect(waiting.waitingReason).toBe('write_attempts_exhausted');
      expect(waiting.calls).toBe(MAX_WRITE_ATTEMPTS);
      expect(run.ports.toolCalls).toHaveLength(MAX_WRITE_ATTEMPTS + 1);
      expect(final.invocations[0]?.status).toBe('succeeded');
    });

    it('failed from the person gives the write up: failed_terminal, no further attempt', async () => {
      const { run, final, seen } = await exhaust(lost, 'failed');
      expect(run.ports.toolCalls).toHaveLength(MAX_WRITE_ATTEMPTS);
      expect(final.invocations[0]).toMatchObject({ status: 'failed_terminal', resolvedBy: 'operator:ops' });
      expect(seen[0]).toMatchObject({ status: 'failed_terminal', errorCode: 'tool.failed' });
    });

    it('succeeded from the person (done outside the run) settles the write with its external id', async () => {
      const { run, final } = await exhaust(notStarted, 'succeeded');
      expect(run.ports.toolCalls).toHaveLength(MAX_WRITE_ATTEMPTS);
      expect(final.invocations[0]).toMatchObject({
        status: 'succeeded',
        resolvedBy: 'operator:ops',
        externalId: 'R-by-hand',
      });
    });
  });

  it('a person reporting not_applied gets the write run again; failed is a business failure, never retried', async () => {
    for (const outcome of ['not_applied', 'failed'] as const) {
      let n = 0;
      const run = fakeRun({
        writeRecovery: true,
        tool: (i) => (++n === 1 ? lost() : succeeded(i)),
        resolve: () => ({ kind: 'unknown' }),
        run: calls(WRITE, []),
      });
      const done = run.execute();
      await run.ports.untilWaiting();
      run.runner.gate.receive('reconcile', { invocationSeq: 1, outcome, actor: 'ops' });
      const final = await done;
      if (outcome === 'not_applied') {
        expect(run.ports.toolCalls.map((c) => c.attempt)).toEqual([undefined, 2]);
        expect(final.invocations[0]?.status).toBe('succeeded');
        expect(decisions(run).map((d) => d.decision)).toEqual(['reconcile', 'await_human', 'retry_attempt']);
      } else {
        expect(run.ports.toolCalls).toHaveLength(1);
        expect(final.invocations[0]?.status).toBe('failed_terminal');
        expect(decisions(run).map((d) => d.decision)).toEqual(['reconcile', 'await_human']);
      }
    }
  });

  it('a found result resumes the run without another attempt', async () => {
    const run = fakeRun({
      writeRecovery: true,
      tool: lost,
      resolve: (i) => {
        const o = succeeded(i);
        if (o.kind !== 'completed') throw new Error('unreachable');
        return { kind: 'reconciled_succeeded', result: o.result };
      },
      run: calls(WRITE, []),
    });
    const final = await run.execute();
    expect(run.ports.toolCalls).toHaveLength(1);
    expect(final.invocations[0]).toMatchObject({ status: 'succeeded', resolvedBy: 'reconciler' });
    expect(decisions(run)).toEqual([
      { attempt: 1, decision: 'reconcile', reason: 'tool.outcome_unknown' },
      { attempt: 1, decision: 'resume', reason: 'reconciled_succeeded' },
    ]);
  });

  it('a resolution that fails for good (the store stays down) asks a person instead of failing the run', async () => {
    const run = fakeRun({
      writeRecovery: true,
      tool: lost,
      resolve: () => {
        throw new Error('activity failed: PostgreSQL is unavailable');
      },
      run: calls(WRITE, []),
    });
    const done = run.execute();
    await run.ports.untilWaiting();
    expect(run.state.waitingReason).toBe('unknown_write_outcome');
    expect(run.ports.ofType('tool.resolution_failed')).toHaveLength(1);
    run.runner.gate.receive('reconcile', { invocationSeq: 1, outcome: 'succeeded', actor: 'ops' });
    const final = await done;
    expect(final.status).toBe('succeeded');
    expect(final.invocations[0]).toMatchObject({ status: 'succeeded', resolvedBy: 'operator:ops' });
  });

  it('without recovery (histories from before) nothing is retried and no decision is recorded', async () => {
    const run = fakeRun({
      tool: notStarted,
      run: calls(WRITE, []),
    });
    const final = await run.execute();
    expect(run.ports.toolCalls).toHaveLength(1);
    expect(final.invocations[0]?.status).toBe('failed_terminal');
    expect(decisions(run)).toEqual([]);
  });

  it('a read that failed is never retried by the run (its activity retries it)', async () => {
    const run = fakeRun({
      writeRecovery: true,
      tool: notStarted,
      run: calls([['demo.read', { id: 'a' }]], []),
    });
    const final = await run.execute();
    expect(run.ports.toolCalls).toHaveLength(1);
    expect(final.invocations[0]?.status).toBe('failed_terminal');
  });
});

describe('a tool activity outcome of an unknown kind (a broken port)', () => {
  it('fails instead of attempting the call again and again', async () => {
    let calls = 0;
    const run = fakeRun({
      writeRecovery: true,
      tool: () => {
        calls += 1;
        return { kind: 'bogus' } as unknown as ToolActivityOutcome;
      },
      run: async (ctx) => {
        await ctx.tool('demo.write', { amount: 1 });
        return { output: 'done' };
      },
    });
    const state = await run.execute();
    // A bug in a port ends the run failed (run.internal_error), as any runner bug does.
    expect(state.status).toBe('failed');
    expect(state.terminalReason?.code).toBe('run.internal_error');
    expect(state.terminalReason?.message).toContain('unknown tool activity outcome');
    expect(calls).toBe(1);
  });
});
