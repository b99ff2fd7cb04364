import { describe, expect, it } from 'vitest';
import { DEFAULT_AUTHORIZATION } from '../../../../src/workflows/authz/authorization-rules.js';
import { DecisionAuthority } from '../../../../src/workflows/authz/decision-authority.js';
import {
  carriedEventsProblem,
  eventsToCarry,
  MAX_CARRIED_EVENT_CHARS,
  MAX_CARRIED_EVENTS,
} from '../../../../src/workflows/runner/carried-events.js';
import { ContinueAsNewRequested } from '../../../../src/workflows/runner/continue-as-new.js';
import { MAX_REFUSAL_EVENTS_PER_WAIT } from '../../../../src/workflows/runner/refusal-record.js';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import type { RunState } from '../../../../src/workflows/runner/run-state.js';
import { TEST_PRINCIPALS } from '../../../support/principals.js';
import { fakeRun, type FakeRun } from './fake-run.js';

/** A signed run (refusals bounded per wait) that asks for an order id, continuing a carried wait. */
function signedInputRun(from?: FakeRun): FakeRun {
  const carried = from ? structuredClone<RunState>(from.state) : undefined;
  const carriedWait = from?.runner.gate.carry();
  return fakeRun({
    run: async (ctx: RunContext) => ({
      output: await ctx.askInput('orderId', 'which order?', { resumeAt: { asking: 'orderId' } }),
    }),
    authorization: {
      authority: new DecisionAuthority({
        workflowId: 'run-1',
        firstExecutionRunId: 'first-1',
        requester: undefined,
        rules: DEFAULT_AUTHORIZATION,
      }),
      loadPrincipals: () => Promise.resolve({ digest: 'sha256:test', registry: TEST_PRINCIPALS }),
    },
    ...(carried ? { prepareState: (s: RunState) => Object.assign(s, carried), resumed: true } : {}),
    ...(carriedWait ? { carriedWait } : {}),
  });
}

const refuse = (run: FakeRun) =>
  run.runner.gate.receive('provideInput', { slot: 'orderId', value: 'x', actor: 'mallory' });

describe('events emitted after a generation stored its last ones', () => {
  it('go with the run, the uncounted refusals counted; the next generation stores them first, gap-free', async () => {
    const first = signedInputRun();
    const done = first.execute();
    await first.ports.untilWaiting();
    first.ports.historyOverBound = 9_000_000;
    refuse(first);
    await expect(done).rejects.toBeInstanceOf(ContinueAsNewRequested);
    // The last flush takes the outbox; then more signals come and are refused.
    const stored = [...first.ports.events, ...first.runner.takeOutbox()];
    for (let i = 0; i < MAX_REFUSAL_EVENTS_PER_WAIT + 5; i++) refuse(first);
    const { events: late, nextEventSeq } = eventsToCarry(first.runner.takeLateEvents());
    if (late === undefined) throw new Error('nothing carried');
    expect(nextEventSeq).toBeUndefined();
    expect(late.map((e) => e.type)).toEqual([
      ...Array<string>(MAX_REFUSAL_EVENTS_PER_WAIT).fill('human.signal_rejected'),
      'human.signal_rejections_suppressed',
    ]);
    expect(late.at(-1)!.data).toMatchObject({ count: 5, recorded: MAX_REFUSAL_EVENTS_PER_WAIT });
    expect(carriedEventsProblem(late, first.state.runId, first.state.nextEventSeq)).toBeUndefined();
    expect(eventsToCarry(first.runner.takeLateEvents()).events).toBeUndefined();

    // The continue-as-new input is JSON: the next generation gets a copy.
    const second = signedInputRun(first);
    second.runner.requeue(structuredClone(late));
    const done2 = second.execute();
    await second.ports.untilWaiting();
    const all = [...stored, ...second.ports.events];
    expect(all.map((e) => e.sequence)).toEqual(all.map((_, i) => all[0]!.sequence + i));
    expect(second.ports.events.slice(0, late.length)).toEqual(late);
    // Still waiting for the person (the wait continued): nothing more to see here.
    void done2.catch(() => undefined);
  });

  it('are checked when carried: bounded, of this run, in order, numbered before the next sequence', () => {
    const run = fakeRun({ run: () => Promise.resolve({ output: 'x' }) });
    run.runner.emit('human.signal_rejected', { signal: 'approve' });
    run.runner.emit('human.signal_rejected', { signal: 'reject' });
    const events = run.runner.takeOutbox();
    const { runId, nextEventSeq } = run.state;
    expect(carriedEventsProblem(events, runId, nextEventSeq)).toBeUndefined();
    const problems = [
      carriedEventsProblem(events, 'another-run', nextEventSeq),
      carriedEventsProblem([events[1], events[0]], runId, nextEventSeq),
      carriedEventsProblem([events[0], events[0]], runId, nextEventSeq),
      carriedEventsProblem(events, runId, nextEventSeq - 1),
      carriedEventsProblem([], runId, nextEventSeq),
      carriedEventsProblem('events', runId, nextEventSeq),
      carriedEventsProblem([{ ...events[0], extra: 1 }], runId, nextEventSeq),
      carriedEventsProblem([{ ...events[0], sequence: -1 }], runId, nextEventSeq),
      carriedEventsProblem(
        Array.from({ length: MAX_CARRIED_EVENTS + 1 }, (_, i) => ({ ...events[0], sequence: i })),
        runId,
        MAX_CARRIED_EVENTS + 2,
      ),
      carriedEventsProblem(
        [{ ...events[0], data: { payload: 'x'.repeat(2 * 1024 * 1024) } }],
        runId,
        nextEventSeq,
      ),
    ];
    for (const p of problems) expect(p).toEqual(expect.any(String));
    expect(problems[0]).toContain(`belongs to run ${runId}, not another-run`);
    expect(problems[9]).toContain('larger than');
  });

  it('past the bounds (runs from before signed decisions record every refusal), the latest are left out and the sequence rewinds', () => {
    const run = fakeRun({ run: () => Promise.resolve({ output: 'x' }) });
    const from = run.state.nextEventSeq;
    for (let i = 0; i < MAX_CARRIED_EVENTS + 3; i++) run.runner.emit('human.signal_rejected', { i });
    const many = eventsToCarry(run.runner.takeLateEvents());
    expect(many.events).toHaveLength(MAX_CARRIED_EVENTS);
    expect(many.events![0]!.data).toEqual({ i: 0 });
    expect(many.nextEventSeq).toBe(from + MAX_CARRIED_EVENTS);
    // By size: ten refusals of 60,000 characters each, four fit.
    for (let i = 0; i < 10; i++) run.runner.emit('human.signal_rejected', { preview: 'x'.repeat(60_000) });
    const large = eventsToCarry(run.runner.takeLateEvents());
    expect(large.events).toHaveLength(Math.floor(MAX_CARRIED_EVENT_CHARS / 60_500));
    expect(large.nextEventSeq).toBe(large.events!.at(-1)!.sequence + 1);
    expect(carriedEventsProblem(large.events, run.state.runId, large.nextEventSeq!)).toBeUndefined();
  });
});
