/**
 * One truth about write retries: a lost write attempt settled `not_applied` by the evidence store or
 * the reconciler is attempted again automatically only when its tool declares `idempotentByKey`; for
 * any other write a person is asked first (`write.not_idempotent`), and their `not_applied` runs it
 * again under the same key.
 */
import { describe, expect, it } from 'vitest';
import type { Observation } from '../../../../src/contract/observation.js';
import type { ToolDefinition } from '../../../../src/contract/tool.js';
import { TOOL_NOT_STARTED } from '../../../../src/contract/failure-types.js';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import { featuresOf, type RunFeature } from '../../../../src/workflows/runner/run-features.js';
import type {
  ToolActivityOutcome,
  ToolCallInput,
  WriteResolution,
} from '../../../../src/workflows/runner/ports.js';
import { fakeRun, READ_TOOL, succeeded, WRITE_TOOL } from './fake-run.js';

const IDEMPOTENT_WRITE: ToolDefinition = { ...WRITE_TOOL, idempotentByKey: true };

const lost = (): ToolActivityOutcome => ({ kind: 'lost', message: 'activity timed out (heartbeat)' });

/** The first attempt is lost, every later one succeeds. */
function lostOnce(): (input: ToolCallInput) => ToolActivityOutcome {
  let n = 0;
  return (input) => (++n === 1 ? lost() : succeeded(input));
}

/** A run of one `demo.write` under write recovery and exhaustion, with the new feature as given. */
function writeRun(o: {
  readonly write: ToolDefinition;
  readonly tool: (input: ToolCallInput) => ToolActivityOutcome;
  readonly resolve?: (input: ToolCallInput) => WriteResolution;
  readonly feature?: boolean;
  readonly seen?: Observation[];
}) {
  const asked: RunFeature[] = [];
  const answers = featuresOf({
    writeRecovery: true,
    writeExhaustionToPerson: true,
    writeRetryNeedsIdempotency: o.feature ?? true,
    boundedValues: true,
    graphNodeChecks: true,
    outputRetry: true,
    trustedIdentifiers: true,
    outputTextLimit: true,
  });
  const run = fakeRun({
    tools: [READ_TOOL, o.write],
    // Each question is logged: a Temporal host records a marker for the first one it asks.
    features: {
      on: (feature) => {
        asked.push(feature);
        return answers.on(feature);
      },
    },
    tool: o.tool,
    resolve: o.resolve ?? (() => ({ kind: 'reconciled_not_applied' })),
    run: async (ctx: RunContext) => {
      const observation = await ctx.tool('demo.write', { amount: 5 });
      o.seen?.push(observation);
      return { output: 'finished' };
    },
  });
  return { run, asked };
}

/** The recovery decisions stored (once each). */
function decisions(run: ReturnType<typeof fakeRun>) {
  const stored = new Map(run.ports.ofType('recovery.decided').map((e) => [e.sequence, e]));
  return [...stored.values()].map((e) => ({
    attempt: e.data.attempt,
    decision: e.data.decision,
    reason: e.data.reason,
  }));
}

describe('write retries after not_applied: idempotentByKey decides', () => {
  it('idempotentByKey: the reconciler’s not_applied runs the write again under the same key, nobody asked', async () => {
    const { run, asked } = writeRun({ write: IDEMPOTENT_WRITE, tool: lostOnce() });
    const final = await run.execute();
    expect(asked).not.toContain('writeRetryNeedsIdempotency');
    expect(final.status).toBe('succeeded');
    expect(final.invocations[0]).toMatchObject({ seq: 1, status: 'succeeded' });
    const [first, second] = run.ports.toolCalls as [ToolCallInput, ToolCallInput];
    expect(run.ports.toolCalls).toHaveLength(2);
    expect(second).toMatchObject({ seq: 1, attempt: 2, idempotencyKey: first.idempotencyKey });
    expect(decisions(run)).toEqual([
      { attempt: 1, decision: 'reconcile', reason: 'tool.outcome_unknown' },
      { attempt: 2, decision: 'retry_attempt', reason: 'not_applied:reconciler' },
    ]);
    expect(run.ports.waits).toHaveLength(0);
    expect(run.ports.ofType('human.requested')).toHaveLength(0);
  });

  describe('not idempotent by the key: a person is asked before another attempt', () => {
    /** Lose the first attempt, let the reconciler say not_applied, then answer as a person. */
    async function askedThenAnswered(
      outcome: 'not_applied' | 'failed' | 'succeeded',
      resolve?: () => WriteResolution,
    ) {
      const seen: Observation[] = [];
      const { run, asked } = writeRun({
        write: WRITE_TOOL,
        tool: lostOnce(),
        seen,
        ...(resolve ? { resolve } : {}),
      });
      const done = run.execute();
      await run.ports.untilWaiting();
      const waiting = {
        status: run.state.status,
        waitingReason: run.state.waitingReason,
        pending: run.state.pendingAction,
        request: run.state.humanRequest,
        calls: run.ports.toolCalls.length,
        decisions: decisions(run),
        asked: [...asked],
      };
      run.runner.gate.receive('reconcile', {
        invocationSeq: 1,
        outcome,
        actor: 'ops',
        ...(outcome === 'succeeded' ? { externalId: 'R-by-hand' } : {}),
      });
      return { run, waiting, seen, final: await done };
    }

    it('no second attempt: the run waits in awaiting_human with write_not_idempotent', async () => {
      const { waiting } = await askedThenAnswered('failed');
      expect(waiting).toMatchObject({
        status: 'awaiting_human',
        waitingReason: 'write_not_idempotent',
        pending: { kind: 'reconcile', invocationSeq: 1, tool: 'demo.write' },
        calls: 1,
        request: {
          decisionType: 'write_not_idempotent',
          riskReasons: ['write_not_idempotent'],
          allowedDecisions: ['succeeded', 'failed', 'not_applied'],
        },
      });
      expect(waiting.request?.requestSummary).toContain('not_applied:reconciler');
      expect(waiting.asked).toContain('writeRetryNeedsIdempotency');
      expect(waiting.decisions).toEqual([
        { attempt: 1, decision: 'reconcile', reason: 'tool.outcome_unknown' },
        { attempt: 1, decision: 'await_human', reason: 'write.not_idempotent' },
      ]);
    });

    it('the person’s not_applied runs it again under the same idempotency key, and it succeeds', async () => {
      const { run, final, seen } = await askedThenAnswered('not_applied');
      expect(run.ports.toolCalls.map((c) => c.attempt)).toEqual([undefined, 2]);
      expect(new Set(run.ports.toolCalls.map((c) => c.idempotencyKey)).size).toBe(1);
      expect(final.status).toBe('succeeded');
      expect(final.invocations[0]).toMatchObject({ seq: 1, status: 'succeeded' });
      expect(seen[0]).toMatchObject({ status: 'succeeded' });
      expect(decisions(run).at(-1)).toEqual({
        attempt: 2,
        decision: 'retry_attempt',
        reason: 'not_applied:operator:ops',
      });
    });

    it('failed gives the write up without another attempt; succeeded settles it as done outside', async () => {
      const failed = await askedThenAnswered('failed');
      expect(failed.run.ports.toolCalls).toHaveLength(1);
      expect(failed.final.invocations[0]).toMatchObject({
        status: 'failed_terminal',
        resolvedBy: 'operator:ops',
      });
      const done = await askedThenAnswered('succeeded');
      expect(done.run.ports.toolCalls).toHaveLength(1);
      expect(done.final.invocations[0]).toMatchObject({
        status: 'succeeded',
        resolvedBy: 'operator:ops',
        externalId: 'R-by-hand',
      });
    });

    it('the same when the evidence store found no intent of the lost attempt', async () => {
      const { waiting, run } = await askedThenAnswered('not_applied', () => ({ kind: 'no_intent' }));
      expect(waiting).toMatchObject({ waitingReason: 'write_not_idempotent', calls: 1 });
      expect(waiting.request?.requestSummary).toContain('not_applied:evidence_store');
      expect(run.ports.toolCalls).toHaveLength(2);
    });
  });

  it('an attempt that failed before its executor ran is tried again for any write, without the question', async () => {
    let n = 0;
    const asked: RunFeature[] = [];
    const run = fakeRun({
      tools: [READ_TOOL, WRITE_TOOL],
      features: {
        on: (f) => {
          asked.push(f);
          return true;
        },
      },
      tool: (i) =>
        ++n === 1 ? { kind: 'failed', code: TOOL_NOT_STARTED, message: 'store down' } : succeeded(i),
      run: async (ctx: RunContext) => {
        await ctx.tool('demo.write', { amount: 5 });
        return { output: 'finished' };
      },
    });
    const final = await run.execute();
    expect(final.invocations[0]?.status).toBe('succeeded');
    expect(run.ports.toolCalls.map((c) => c.attempt)).toEqual([undefined, 2]);
    expect(asked).not.toContain('writeRetryNeedsIdempotency');
  });

  it('runs from before writeRetryNeedsIdempotency retry any write settled not applied, as they did', async () => {
    const { run } = writeRun({ write: WRITE_TOOL, tool: lostOnce(), feature: false });
    const final = await run.execute();
    expect(final.status).toBe('succeeded');
    expect(run.ports.toolCalls.map((c) => c.attempt)).toEqual([undefined, 2]);
    expect(decisions(run).map((d) => d.decision)).toEqual(['reconcile', 'retry_attempt']);
  });
});
