import { describe, expect, it } from 'vitest';
import type { Observation } from '../../../../src/contract/observation.js';
import type {
  OperatorResolutionInput,
  OperatorResolutionOutcome,
} from '../../../../src/workflows/runner/ports.js';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import { fakeRun, succeeded } from './fake-run.js';

/** A lost demo.write whose outcome nobody but a person can tell; `host` records the person's decision. */
function lostWrite(host: (input: OperatorResolutionInput) => OperatorResolutionOutcome, recording = true) {
  const seen: Observation[] = [];
  const recorded: OperatorResolutionInput[] = [];
  const run = fakeRun({
    tool: () => ({ kind: 'lost', message: 'worker lost' }),
    resolve: () => ({ kind: 'unknown' }),
    run: async (ctx: RunContext) => {
      seen.push(await ctx.tool('demo.write', { amount: 5 }));
      return { output: 'finished' };
    },
  });
  let asked = 0;
  Object.assign(run.ports, {
    operatorResolutionRecorder: () => {
      asked += 1;
      if (!recording) return undefined;
      return async (input: OperatorResolutionInput) => {
        await Promise.resolve();
        recorded.push(input);
        const outcome = host(input);
        run.ports.events.push(...input.call.events); // the activity ran
        return outcome;
      };
    },
  });
  return { run, seen, recorded, asked: () => asked };
}

describe("an operator's reconciliation of a lost write", () => {
  it('is recorded in the evidence store with the events so far and names the external id', async () => {
    const { run, seen, recorded } = lostWrite(() => ({ kind: 'recorded' }));
    const done = run.execute();
    await run.ports.untilWaiting();
    run.runner.gate.receive('reconcile', {
      invocationSeq: 1,
      outcome: 'succeeded',
      actor: 'ops',
      externalId: 'R-77',
      evidence: { ticket: 'T-1' },
    });
    const final = await done;
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      call: { seq: 1, tool: 'demo.write', effect: 'write' },
      outcome: 'succeeded',
      actor: 'ops',
      externalId: 'R-77',
      evidence: { ticket: 'T-1' },
    });
    // the events up to the decision travelled with the recording activity (stored once, in order)
    expect(recorded[0]!.call.events.map((e) => e.type)).toContain('state.transitioned');
    expect(final.invocations[0]).toMatchObject({
      status: 'succeeded',
      externalId: 'R-77',
      resolvedBy: 'operator:ops',
    });
    expect(seen[0]).toMatchObject({
      status: 'succeeded',
      externalId: 'R-77',
      output: { reconciledBy: 'ops', externalId: 'R-77', evidence: { ticket: 'T-1' } },
    });
    expect(run.ports.toolCalls).toHaveLength(1);
    const seqs = run.ports.events.map((e) => e.sequence);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i));
  });

  it("gives way to a result the executor recorded after all: the store's result stands", async () => {
    const { run, seen } = lostWrite((input) => {
      const done = succeeded(input.call, { externalId: 'R-real' });
      if (done.kind !== 'completed') throw new Error('unreachable');
      return { kind: 'result_recorded', result: done.result };
    });
    const done = run.execute();
    await run.ports.untilWaiting();
    run.runner.gate.receive('reconcile', { invocationSeq: 1, outcome: 'not_applied', actor: 'ops' });
    const final = await done;
    expect(final.invocations[0]).toMatchObject({
      status: 'succeeded',
      externalId: 'R-real',
      resolvedBy: 'evidence_store',
    });
    expect(seen[0]?.status).toBe('succeeded');
    expect(run.ports.ofType('human.decision_superseded')[0]?.data).toMatchObject({
      seq: 1,
      actor: 'ops',
      outcome: 'not_applied',
      by: 'evidence_store',
    });
  });

  it('keeps the events queued when the host does not record (a history from before the recording)', async () => {
    const { run, recorded, asked } = lostWrite(() => ({ kind: 'recorded' }), false);
    const done = run.execute();
    await run.ports.untilWaiting();
    // asked once, before the wait (a Temporal host decides its patch there)
    expect(asked()).toBe(1);
    run.runner.gate.receive('reconcile', { invocationSeq: 1, outcome: 'succeeded', actor: 'ops' });
    const final = await done;
    expect(asked()).toBe(1);
    expect(recorded).toHaveLength(0);
    expect(final.invocations[0]).toMatchObject({ status: 'succeeded', resolvedBy: 'operator:ops' });
    expect(final.invocations[0]?.externalId).toBeUndefined();
    // nothing lost: every event from 1 to the last reached the store exactly once
    const seqs = run.ports.events.map((e) => e.sequence);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i));
    expect(run.ports.ofType('human.requested')).toHaveLength(1);
  });

  it('refuses an external id with any outcome but succeeded, and changes nothing', async () => {
    const { run, recorded } = lostWrite(() => ({ kind: 'recorded' }));
    const done = run.execute();
    await run.ports.untilWaiting();
    run.runner.gate.receive('reconcile', {
      invocationSeq: 1,
      outcome: 'failed',
      actor: 'ops',
      externalId: 'R-1',
    });
    await run.ports.settle();
    expect(run.state.status).toBe('awaiting_human');
    expect(recorded).toHaveLength(0);
    expect(run.state.signalRejections?.at(-1)).toMatchObject({
      signal: 'reconcile',
      code: 'signal.malformed',
    });
    run.runner.gate.receive('reconcile', { invocationSeq: 1, outcome: 'failed', actor: 'ops' });
    const final = await done;
    expect(final.invocations[0]?.status).toBe('failed_terminal');
  });
});
