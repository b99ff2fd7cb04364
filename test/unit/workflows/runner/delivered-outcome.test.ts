import { describe, expect, it } from 'vitest';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import { featuresOf } from '../../../../src/workflows/runner/run-features.js';
import type { DeliveredAnswer, Profile } from '../../../../src/workflows/runner/profile.js';
import { fakeRun } from './fake-run.js';

/** A write, then reads until the tool-call budget ends the run. */
async function writeThenRead(ctx: RunContext): Promise<never> {
  await ctx.tool('demo.write', { amount: 5 });
  for (let i = 0; ; i++) await ctx.tool('demo.read', { id: `id-${i}` });
}

/** Reads only, until the budget ends the run. */
async function readOnly(ctx: RunContext): Promise<never> {
  for (let i = 0; ; i++) await ctx.tool('demo.read', { id: `id-${i}` });
}

function run(o: { on: boolean; body?: (ctx: RunContext) => Promise<never>; answer?: DeliveredAnswer }) {
  const profile: Profile = {
    name: 'test.profile',
    version: 'v1',
    kind: 'goal',
    completion: { evaluator: { name: 'solution_delivered', version: 'v1' } },
    tools: ['demo.read', 'demo.write'],
    policies: { default: 'allow_all@v1' },
    ...(o.answer ? { deliveredAnswer: o.answer } : {}),
    run: o.body ?? writeThenRead,
  };
  return fakeRun({
    profile,
    limits: { maxToolCalls: 3 },
    features: featuresOf({ boundedValues: true, deliveredOutcome: o.on }),
  });
}

describe('a budget end after an applied write (agent-run-delivered-outcome-v1)', () => {
  it("composes the runner's summary and the terminal reason says what was delivered", async () => {
    const r = run({ on: true });
    const final = await r.execute();
    expect(final.status).toBe('budget_exhausted');
    expect(final.terminalReason).toMatchObject({
      code: 'budget.max_tool_calls',
      outcome: 'delivered',
      delivered: [{ seq: 1, tool: 'demo.write', version: 'v1', externalId: 'X1' }],
    });
    expect(final.output).toMatchObject({
      outcome: 'delivered',
      delivered: [{ tool: 'demo.write', externalId: 'X1' }],
      message: expect.stringContaining('demo.write@v1 (X1)') as string,
    });
    expect(r.ports.ofType('run.outcome_delivered')[0]?.data).toMatchObject({
      code: 'budget.max_tool_calls',
      composedBy: 'runner',
      answer: 'composed',
    });
    expect(r.ports.ofType('run.failed')[0]?.data).toMatchObject({
      status: 'budget_exhausted',
      reason: { outcome: 'delivered' },
      output: final.output,
    });
  });

  it("takes the profile's answer; one that throws or is too large is replaced by the summary", async () => {
    const own = await run({ on: true, answer: (o) => ({ said: o.writes.length }) }).execute();
    expect(own.output).toEqual({ said: 1 });
    const throws = run({
      on: true,
      answer: () => {
        throw new Error('no');
      },
    });
    expect((await throws.execute()).output).toMatchObject({ outcome: 'delivered' });
    expect(throws.ports.ofType('run.outcome_delivered')[0]?.data.composedBy).toBe('runner');
    const huge = await run({ on: true, answer: () => 'x'.repeat(9000) }).execute();
    expect(huge.output).toMatchObject({ outcome: 'delivered' });
  });

  it('without applied writes, or without the feature, the end is as before', async () => {
    for (const r of [run({ on: true, body: readOnly }), run({ on: false })]) {
      const final = await r.execute();
      expect(final.status).toBe('budget_exhausted');
      expect(final.terminalReason?.outcome).toBeUndefined();
      expect(final.terminalReason?.delivered).toBeUndefined();
      expect(final.output).toBeNull();
      expect(r.ports.ofType('run.outcome_delivered')).toEqual([]);
    }
  });
});
