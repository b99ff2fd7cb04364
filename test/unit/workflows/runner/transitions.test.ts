import { describe, expect, it } from 'vitest';
import { HarnessError } from '../../../../src/contract/errors.js';
import {
  RunStatusSchema,
  TRANSITIONS,
  assertTransition,
  isTerminal,
  type RunStatus,
} from '../../../../src/contract/statuses.js';
import { fakeRun } from './fake-run.js';

const ALL: RunStatus[] = RunStatusSchema.options;

/** A runner whose state is put directly in `from` (the table is the unit under test). */
function runnerAt(from: RunStatus) {
  const run = fakeRun({ run: () => Promise.resolve({ output: 'x' }) });
  run.state.status = from;
  run.state.stateVersion = 7;
  return run;
}

describe('run status transition table', () => {
  const legal = ALL.flatMap((from) => TRANSITIONS[from].map((to) => [from, to] as const));
  const illegal = ALL.flatMap((from) =>
    ALL.filter((to) => !TRANSITIONS[from].includes(to)).map((to) => [from, to] as const),
  );

  it('covers every status and has no way out of a terminal one', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...ALL].sort());
    for (const s of ALL) expect(TRANSITIONS[s].length === 0).toBe(isTerminal(s));
    expect(legal.length).toBeGreaterThan(20);
    expect(illegal.length + legal.length).toBe(ALL.length * ALL.length);
  });

  it.each(legal)('%s -> %s is legal: stateVersion +1, recorded with its patch and an event', (from, to) => {
    const { runner, state, ports } = runnerAt(from);
    const publishes = ports.publishes;
    runner.transition(to, { waitingReason: `why-${to}`, currentNode: 'node-a' });
    expect(state.status).toBe(to);
    expect(state.stateVersion).toBe(8);
    expect(state.waitingReason).toBe(`why-${to}`);
    expect(state.currentNode).toBe('node-a');
    expect(state.recentTransitions.at(-1)).toMatchObject({
      fromVersion: 7,
      fromStatus: from,
      toStatus: to,
      patch: { waitingReason: `why-${to}`, currentNode: 'node-a' },
    });
    const [event] = runner.takeOutbox().filter((e) => e.type === 'state.transitioned');
    expect(event?.data).toMatchObject({
      fromStatus: from,
      toStatus: to,
      fromVersion: 7,
      toVersion: 8,
      patch: { waitingReason: `why-${to}` },
    });
    expect(ports.publishes).toBe(publishes + 1);
  });

  it.each(illegal)('%s -> %s is illegal: run.illegal_transition, nothing changes', (from, to) => {
    const { runner, state } = runnerAt(from);
    let thrown: unknown;
    try {
      runner.transition(to, { waitingReason: 'x' });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(HarnessError);
    expect((thrown as HarnessError).code).toBe('run.illegal_transition');
    expect(() => assertTransition(from, to)).toThrow(/illegal run status transition/);
    expect(state.status).toBe(from);
    expect(state.stateVersion).toBe(7);
    expect(state.recentTransitions).toEqual([]);
    expect(runner.takeOutbox()).toEqual([]);
  });

  it('keeps a bounded list of recent transitions but counts every one in stateVersion', () => {
    const { runner, state } = runnerAt('running');
    for (let i = 0; i < 30; i++) {
      runner.transition('retry_scheduled');
      runner.transition('running');
    }
    expect(state.stateVersion).toBe(67);
    expect(state.recentTransitions).toHaveLength(20);
    expect(state.recentTransitions.at(-1)).toMatchObject({ fromVersion: 66, toStatus: 'running' });
    expect(runner.takeOutbox().filter((e) => e.type === 'state.transitioned')).toHaveLength(60);
  });

  it('a whole successful run walks created -> queued -> running -> succeeded', async () => {
    const run = fakeRun({ run: () => Promise.resolve({ output: 'answer' }) });
    const final = await run.execute();
    expect(final.status).toBe('succeeded');
    expect(final.recentTransitions.map((t) => `${t.fromStatus}->${t.toStatus}`)).toEqual([
      'created->queued',
      'queued->running',
      'running->succeeded',
    ]);
    expect(final.stateVersion).toBe(3);
  });
});
