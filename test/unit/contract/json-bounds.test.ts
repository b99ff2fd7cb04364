import { describe, expect, it } from 'vitest';
import { DECISION_PAYLOAD_BOUNDS, jsonBoundsProblem } from '../../../src/contract/json-bounds.js';
import { fakeRun } from '../workflows/runner/fake-run.js';

/** `{ a: { a: ... } }` nested `levels` deep, built without recursion. */
function nested(levels: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

describe('JSON bounds of values from outside', () => {
  const bounds = { maxChars: 1000, maxDepth: 4 };

  it('accepts plain JSON within the bounds', () => {
    expect(jsonBoundsProblem({ a: [1, 'two', null, true, { b: 2 }] }, bounds)).toBeUndefined();
    expect(jsonBoundsProblem(nested(4), bounds)).toBeUndefined();
  });

  it('refuses too deep, too large, and what is not JSON data', () => {
    expect(jsonBoundsProblem(nested(5), bounds)).toBe('nested deeper than 4 levels');
    expect(jsonBoundsProblem({ s: 'x'.repeat(1000) }, bounds)).toBe('larger than 1000 characters as JSON');
    expect(jsonBoundsProblem(new Array(600).fill(1), bounds)).toBe('larger than 1000 characters as JSON');
    expect(jsonBoundsProblem({ n: Number.NaN }, bounds)).toBe('holds a number that is not finite');
    expect(jsonBoundsProblem({ d: new Date(0) }, bounds)).toBe('holds something other than plain JSON data');
    expect(jsonBoundsProblem({ f: () => 1 }, bounds)).toBe('holds a function, which is not JSON data');
  });

  it('a value a million levels deep is refused without overflowing the stack', () => {
    expect(jsonBoundsProblem(nested(1_000_000), DECISION_PAYLOAD_BOUNDS)).toBe('nested deeper than 8 levels');
  });

  it('a decision payload over the bounds is refused as signal.too_large and changes nothing', async () => {
    const run = fakeRun({ run: async (ctx) => ({ output: await ctx.askInput('orderId', 'which order?') }) });
    const done = run.execute();
    await run.ports.untilWaiting();
    run.runner.gate.receive('provideInput', {
      slot: 'orderId',
      value: 'ORD-1',
      actor: 'u',
      extra: nested(100_000),
    });
    run.runner.gate.receive('provideInput', {
      slot: 'orderId',
      value: 'ORD-1',
      actor: 'u',
      padding: 'x'.repeat(40_000),
    });
    await run.ports.settle();
    expect(run.state.status).toBe('awaiting_input');
    run.runner.gate.receive('provideInput', { slot: 'orderId', value: 'ORD-1', actor: 'u' });
    expect((await done).output).toBe('ORD-1');
    const refused = run.ports.ofType('human.signal_rejected').map((e) => [e.data.code, e.data.message]);
    expect(refused).toEqual([
      ['signal.too_large', 'the payload nested deeper than 8 levels'],
      ['signal.too_large', 'the payload larger than 32768 characters as JSON'],
    ]);
  });

  it('tool arguments over the bounds are a rejection the model reads; nothing is dispatched', async () => {
    const seen: unknown[] = [];
    const run = fakeRun({
      run: async (ctx) => {
        seen.push(await ctx.tool('demo.write', { amount: 5, note: 'x'.repeat(70_000) }));
        seen.push(await ctx.tool('demo.write', nested(100_000)));
        return { output: 'done' };
      },
    });
    const final = await run.execute();
    expect(final.status).toBe('succeeded');
    expect(seen).toMatchObject([
      { status: 'rejected', errorCode: 'tool.arguments_too_large' },
      { status: 'rejected', errorCode: 'tool.arguments_too_large' },
    ]);
    expect(run.ports.toolCalls).toHaveLength(0);
  });
});
