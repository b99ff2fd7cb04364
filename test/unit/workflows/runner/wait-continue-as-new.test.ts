import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ContinueAsNewRequested } from '../../../../src/workflows/runner/continue-as-new.js';
import { CarriedWaitSchema } from '../../../../src/workflows/runner/carried-wait.js';
import { createGraphProfile, type GraphDefinition } from '../../../../src/workflows/runner/graph-profile.js';
import type { RunState } from '../../../../src/workflows/runner/run-state.js';
import { fakeRun, type FakeRun } from './fake-run.js';

interface S extends Record<string, unknown> {
  orderId?: string;
  asked: number;
  confirmation_granted?: boolean;
}

/** Asks for an order id, then for a confirmation bound to a tool call, then ends. */
function graph(counter: { collect: number; confirm: number }) {
  const g: GraphDefinition<S> = {
    name: 'wait.graph',
    version: 'v1',
    start: 'collect',
    terminal: ['done'],
    nodes: [
      {
        id: 'collect',
        run: (s) => {
          counter.collect += 1;
          return Promise.resolve(
            s.orderId
              ? { outcome: 'completed' }
              : {
                  outcome: 'pause_for_input',
                  statePatch: { asked: s.asked + 1 },
                  input: { slot: 'orderId', prompt: 'which order?' },
                },
          );
        },
      },
      {
        id: 'confirm',
        run: () => {
          counter.confirm += 1;
          return Promise.resolve({
            outcome: 'pause_for_confirmation',
            confirmation: {
              decisionType: 'demo',
              summary: 'write 7',
              action: { tool: 'demo.write', version: 'v1', args: { amount: 7 } },
            },
          });
        },
      },
      {
        id: 'done',
        run: (s) =>
          Promise.resolve({ outcome: 'completed', output: { order: s.orderId, ok: s.confirmation_granted } }),
      },
    ],
    edges: [
      { from: 'collect', to: 'confirm' },
      { from: 'confirm', to: 'done' },
    ],
    conditions: {},
    initialState: () => ({ asked: 0 }),
    stateSchema: z.object({
      orderId: z.string().optional(),
      asked: z.number().int(),
      confirmation_granted: z.boolean().optional(),
    }),
    tools: [],
    policies: { default: 'allow_all@v1' },
    completion: { evaluator: { name: 'solution_delivered', version: 'v1' } },
  };
  return createGraphProfile(g);
}

/** One generation; `from` is the previous one (its state and gate carried as agentRun carries them). */
function generation(counter: { collect: number; confirm: number }, from?: FakeRun): FakeRun {
  const carriedWait = from?.runner.gate.carry();
  if (carriedWait) CarriedWaitSchema.parse(carriedWait);
  const carried = from ? structuredClone<RunState>(from.state) : undefined;
  return fakeRun({
    profile: graph(counter),
    ...(carried ? { prepareState: (s) => Object.assign(s, carried), resumed: true } : {}),
    ...(carriedWait ? { carriedWait } : {}),
  });
}

async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !ready(); i++) await new Promise((r) => setImmediate(r));
  if (!ready()) throw new Error('never ready');
}

describe('a wait whose history reaches its bound', () => {
  it('continues as new with the wait pending; the next generation takes it up with the same action', async () => {
    const counter = { collect: 0, confirm: 0 };
    const first = generation(counter);
    const done = first.execute();
    await first.ports.untilWaiting();
    const waitingFor = first.state.pendingAction!.actionId;
    first.runner.gate.receive('provideInput', { slot: 'orderId', value: 'x'.repeat(40_000), actor: 'm' });
    first.ports.historyOverBound = 9_000_000;
    await expect(done).rejects.toBeInstanceOf(ContinueAsNewRequested);
    expect(first.state).toMatchObject({ status: 'awaiting_input', profileState: { node: 'collect' } });
    expect(first.state.pendingAction?.actionId).toBe(waitingFor);
    const saved = first.runner
      .takeOutbox()
      .filter((e) => e.type === 'checkpoint.saved')
      .at(-1);
    expect(saved?.data).toMatchObject({ reason: 'continue_as_new', waitingFor, historySizeBytes: 9_000_000 });

    const second = generation(counter, first);
    const done2 = second.execute();
    await second.ports.untilWaiting();
    expect(second.state.pendingAction?.actionId).toBe(waitingFor);
    expect(second.ports.typesOf()).toContain('human.wait_continued');
    expect(second.ports.typesOf()).not.toContain('human.requested');
    expect(counter.collect).toBe(1); // the node did not run again
    second.runner.gate.receive('provideInput', { slot: 'orderId', value: 'ORD-1', actor: 'u' });
    await until(() => second.state.status === 'awaiting_confirmation');
    expect(second.state.status).toBe('awaiting_confirmation');
    second.runner.gate.receive('approve', { actionId: second.state.pendingAction!.actionId, actor: 'ops' });
    const final = await done2;
    expect(final.status).toBe('succeeded');
    expect(final.output).toEqual({ order: 'ORD-1', ok: true });
    expect(counter).toEqual({ collect: 2, confirm: 1 });
  });

  it('a decision accepted after the wait ended for continue-as-new goes with the run', async () => {
    const counter = { collect: 0, confirm: 0 };
    const first = generation(counter);
    const done = first.execute();
    await first.ports.untilWaiting();
    first.runner.gate.receive('provideInput', { slot: 'orderId', value: 'ORD-1', actor: 'u' });
    await until(() => first.state.status === 'awaiting_confirmation');
    const waitingFor = first.state.pendingAction!.actionId;
    first.ports.historyOverBound = 9_000_000;
    await first.ports.settle();
    expect(first.ports.waiting).toBe(true); // nothing refused yet: the bound is about refusals
    first.runner.gate.receive('approve', { actionId: 'another', actor: 'm' });
    await expect(done).rejects.toBeInstanceOf(ContinueAsNewRequested);
    // Between the end of the wait and the continue-as-new (the last flush): still pending, taken.
    expect(first.runner.gate.receive('approve', { actionId: waitingFor, actor: 'ops' })).toMatchObject({
      accepted: true,
    });
    const second = generation(counter, first);
    const final = await second.execute();
    expect(final.status).toBe('succeeded');
    expect(final.output).toEqual({ order: 'ORD-1', ok: true });
    expect(second.ports.ofType('human.decided').map((e) => e.data.actionId)).toEqual([waitingFor]);
    expect(counter.confirm).toBe(1);
  });

  it('a wait with no point to resume from ends the run with run.history_limit, naming the wait', async () => {
    const run = fakeRun({ run: async (ctx) => ({ output: await ctx.askInput('orderId', 'which order?') }) });
    const done = run.execute();
    await run.ports.untilWaiting();
    run.ports.historyOverBound = 8_500_000;
    run.runner.gate.receive('provideInput', { slot: 'other', value: 'v', actor: 'm' });
    const final = await done;
    expect(final.status).toBe('failed');
    expect(final.pendingAction).toBeNull();
    expect(final.terminalReason).toMatchObject({
      code: 'run.history_limit',
      details: { actionId: 'input-orderId', kind: 'input', historySizeBytes: 8_500_000 },
    });
    expect(run.ports.ofType('run.failed')[0]?.data).toMatchObject({ reason: { code: 'run.history_limit' } });
  });

  it('a decision that comes with the batch that crosses the bound is taken, not carried', async () => {
    const run = fakeRun({ run: async (ctx) => ({ output: await ctx.askInput('orderId', 'which order?') }) });
    const done = run.execute();
    await run.ports.untilWaiting();
    run.ports.historyOverBound = 8_500_000;
    run.runner.gate.receive('provideInput', { slot: 'orderId', value: 'ORD-7', actor: 'u' });
    expect((await done).output).toBe('ORD-7');
  });

  it('a wait over the bound moves only once it refused something (no loop under a low bound)', async () => {
    const counter = { collect: 0, confirm: 0 };
    const first = generation(counter);
    const done = first.execute();
    await first.ports.untilWaiting();
    first.ports.historyOverBound = 9_000_000;
    first.runner.gate.receive('provideInput', { slot: 'nope', value: 'v', actor: 'm' });
    await expect(done).rejects.toBeInstanceOf(ContinueAsNewRequested);
    const second = generation(counter, first);
    second.ports.historyOverBound = 9_000_000;
    const done2 = second.execute();
    await second.ports.untilWaiting();
    await second.ports.settle();
    expect(second.ports.waiting).toBe(true);
    second.runner.gate.receive('provideInput', { slot: 'nope', value: 'v', actor: 'm' });
    await expect(done2).rejects.toBeInstanceOf(ContinueAsNewRequested);
  });
});
