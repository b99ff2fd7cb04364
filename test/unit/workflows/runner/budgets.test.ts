import { describe, expect, it } from 'vitest';
import {
  budgetWarnings,
  checkModelCall,
  checkSpend,
  checkStep,
  checkToolCall,
  DEFAULT_LIMITS,
  emptyUsage,
} from '../../../../src/workflows/runner/budget.js';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import { decision, fakeRun } from './fake-run.js';

/** A profile that keeps asking the model and calling what it proposes, forever. */
async function loop(ctx: RunContext): Promise<never> {
  for (;;) {
    const d = await ctx.model('decide', {
      messages: [{ role: 'user', content: 'go' }],
      tools: ctx.visibleTools(),
    });
    for (const c of d.toolCalls) await ctx.tool(c.name, c.args, { version: c.version });
  }
}

let n = 0;
/** A fresh read call each time (different args: no duplicate). */
const freshRead = () =>
  decision({ toolCalls: [{ id: `c${++n}`, name: 'demo.read', version: 'v1', args: { id: `id-${n}` } }] });

describe('budget checks (pure)', () => {
  it('each check names its own budget and nothing else', () => {
    const l = {
      ...DEFAULT_LIMITS,
      maxSteps: 3,
      maxModelCalls: 2,
      maxToolCalls: 2,
      perToolLimit: { 'a.b': 1 },
      maxInputTokens: 100,
      maxOutputTokens: 50,
      maxCostUsd: 1,
      maxDuplicateCalls: 1,
      maxStepsWithoutProgress: 2,
    };
    const u = emptyUsage();
    expect(checkStep(l, u)).toBeUndefined();
    expect(checkModelCall(l, u)).toBeUndefined();
    expect(checkToolCall(l, u, 'a.b', 'k')).toBeUndefined();
    expect(checkStep(l, { ...u, steps: 3 })?.budget).toBe('max_steps');
    expect(checkStep(l, { ...u, stepsWithoutProgress: 2 })?.budget).toBe('no_progress');
    expect(checkModelCall(l, { ...u, modelCalls: 2 })?.budget).toBe('max_model_calls');
    expect(checkSpend(l, { ...u, inputTokens: 101 })?.budget).toBe('max_input_tokens');
    expect(checkSpend(l, { ...u, inputTokens: 100 })).toBeUndefined();
    expect(checkSpend(l, { ...u, outputTokens: 51 })?.budget).toBe('max_output_tokens');
    expect(checkSpend(l, { ...u, costUsd: 1.01 })?.budget).toBe('max_cost_usd');
    expect(checkToolCall(l, { ...u, toolCalls: 2 }, 'x.y', 'k')?.budget).toBe('max_tool_calls');
    expect(checkToolCall(l, { ...u, perTool: { 'a.b': 1 } }, 'a.b', 'k')).toMatchObject({
      budget: 'per_tool_limit',
      detail: 'a.b',
    });
    expect(checkToolCall(l, { ...u, perTool: { 'a.b': 1 } }, 'x.y', 'k')).toBeUndefined();
    expect(checkToolCall(l, { ...u, callDigests: { k: 1 } }, 'x.y', 'k')).toMatchObject({
      budget: 'duplicate_call',
      detail: 'k',
    });
    expect(checkToolCall(l, { ...u, callDigests: { k: 1 } }, 'x.y', 'other')).toBeUndefined();
  });

  it('warnings name the budgets that crossed the fraction', () => {
    const l = { ...DEFAULT_LIMITS, maxSteps: 10, maxModelCalls: 10, warnAtFraction: 0.5 };
    expect(budgetWarnings(l, { ...emptyUsage(), steps: 4 })).toEqual([]);
    expect(budgetWarnings(l, { ...emptyUsage(), steps: 5, modelCalls: 5 })).toEqual([
      'max_steps',
      'max_model_calls',
    ]);
  });
});

describe('budgets end a run as budget_exhausted naming the budget', () => {
  async function exhausted(limits: Parameters<typeof fakeRun>[0]['limits'], model = freshRead) {
    const run = fakeRun({ run: loop, limits, model: () => model() });
    const final = await run.execute();
    expect(final.status).toBe('budget_exhausted');
    const code = final.terminalReason?.code;
    // Exactly one budget.exhausted event, naming the same budget as the terminal reason.
    expect(run.ports.ofType('budget.exhausted').map((e) => `budget.${String(e.data.budget)}`)).toEqual([
      code,
    ]);
    return { run, final, code };
  }

  it('max steps (model and tool steps both count)', async () => {
    const { final, code, run } = await exhausted({ maxSteps: 5 });
    expect(code).toBe('budget.max_steps');
    expect(final.budget.steps).toBe(5);
    expect(final.terminalReason?.details).toMatchObject({ budget: 'max_steps', limit: 5, used: 5 });
    expect(run.ports.ofType('run.failed')[0]?.data).toMatchObject({ status: 'budget_exhausted' });
  });

  it('max model calls', async () => {
    const { final, code, run } = await exhausted({ maxModelCalls: 3 });
    expect(code).toBe('budget.max_model_calls');
    expect(run.ports.modelCalls).toHaveLength(3);
    expect(final.budget.modelCalls).toBe(3);
  });

  it('max tool calls: the call over the limit is never dispatched', async () => {
    const { code, run } = await exhausted({ maxToolCalls: 2 });
    expect(code).toBe('budget.max_tool_calls');
    expect(run.ports.toolCalls).toHaveLength(2);
    expect(run.ports.ofType('budget.exhausted')[0]?.data).toMatchObject({
      budget: 'max_tool_calls',
      limit: 2,
      used: 2,
    });
  });

  it('per-tool limit names the tool', async () => {
    const { final, code, run } = await exhausted({ perToolLimit: { 'demo.read': 2 } });
    expect(code).toBe('budget.per_tool_limit');
    expect(final.terminalReason?.details).toMatchObject({ detail: 'demo.read', limit: 2 });
    expect(run.ports.toolCalls).toHaveLength(2);
  });

  it('max input tokens, counted from the model usage', async () => {
    const { code, final } = await exhausted({ maxInputTokens: 25 }, () =>
      decision({ usage: { inputTokens: 10, outputTokens: 1 }, toolCalls: freshRead().toolCalls }),
    );
    expect(code).toBe('budget.max_input_tokens');
    expect(final.budget.inputTokens).toBe(30);
    expect(final.budget.modelCalls).toBe(3);
  });

  it('max output tokens', async () => {
    const { code } = await exhausted({ maxOutputTokens: 9 }, () =>
      decision({ usage: { inputTokens: 1, outputTokens: 5 }, toolCalls: freshRead().toolCalls }),
    );
    expect(code).toBe('budget.max_output_tokens');
  });

  it('max cost', async () => {
    const { code, final } = await exhausted({ maxCostUsd: 0.05 }, () =>
      decision({ costUsd: 0.02, toolCalls: freshRead().toolCalls }),
    );
    expect(code).toBe('budget.max_cost_usd');
    expect(final.budget.costUsd).toBeCloseTo(0.06);
  });

  it('duplicate-call detector: the same tool with the same arguments once too often', async () => {
    const same = () =>
      decision({ toolCalls: [{ id: 'c', name: 'demo.read', version: 'v1', args: { id: 'same' } }] });
    const { code, final, run } = await exhausted({ maxDuplicateCalls: 2 }, same);
    expect(code).toBe('budget.duplicate_call');
    expect(run.ports.toolCalls).toHaveLength(2);
    expect(String(final.terminalReason?.details?.detail)).toMatch(/^demo\.read@v1#sha256:[0-9a-f]{64}$/);
  });

  it('no-progress detector: steps without a new fact, artifact or successful call', async () => {
    // Every call is rejected (unknown tool): no progress is ever made.
    const junk = () => decision({ toolCalls: [{ id: 'c', name: 'demo.nothing', version: 'v1', args: {} }] });
    const { code, final, run } = await exhausted({ maxStepsWithoutProgress: 4 }, junk);
    expect(code).toBe('budget.no_progress');
    expect(final.budget.stepsWithoutProgress).toBe(4);
    expect(run.ports.toolCalls).toHaveLength(0);
  });

  it('no-progress and max steps also stop a profile that only calls tools', async () => {
    const toolsOnly = (limits: Parameters<typeof fakeRun>[0]['limits']) =>
      fakeRun({
        limits,
        run: async (ctx) => {
          for (;;) await ctx.tool('demo.nothing', {});
        },
      });
    const a = toolsOnly({ maxStepsWithoutProgress: 3 });
    expect((await a.execute()).terminalReason?.code).toBe('budget.no_progress');
    expect(a.ports.ofType('budget.exhausted').map((e) => e.data.budget)).toEqual(['no_progress']);
    expect(a.ports.ofType('tool.failed')).toHaveLength(3);
    const b = toolsOnly({ maxSteps: 2 });
    expect((await b.execute()).terminalReason?.code).toBe('budget.max_steps');
    expect(b.ports.ofType('budget.exhausted').map((e) => e.data.budget)).toEqual(['max_steps']);
  });

  it('progress resets the no-progress counter', async () => {
    const run = fakeRun({
      run: loop,
      limits: { maxStepsWithoutProgress: 3, maxSteps: 12 },
      model: () => freshRead(),
    });
    const final = await run.execute();
    expect(final.terminalReason?.code).toBe('budget.max_steps');
  });

  it('warnings are emitted once per budget when crossing the fraction', async () => {
    const run = fakeRun({
      run: loop,
      limits: { maxModelCalls: 5, warnAtFraction: 0.6 },
      model: () => freshRead(),
    });
    await run.execute();
    const warnings = run.ports.ofType('budget.warning').map((e) => e.data.budget);
    expect(warnings).toEqual(['max_model_calls']);
    const third = run.ports.events.findIndex((e) => e.type === 'model.completed' && e.data.callSeq === 3);
    const warn = run.ports.events.findIndex((e) => e.type === 'budget.warning');
    expect(warn).toBeGreaterThan(third);
    expect(run.state.terminalReason?.code).toBe('budget.max_model_calls');
  });

  it('a carried run does not warn again about a budget its usage crossed before the carry', async () => {
    const run = fakeRun({
      run: loop,
      limits: { maxModelCalls: 6, maxToolCalls: 100, warnAtFraction: 0.5 },
      model: () => freshRead(),
      prepareState: (s) => {
        s.budget.modelCalls = 4; // warned in the previous generation (4 >= 0.5 * 6)
      },
    });
    await run.execute();
    expect(run.state.budget.modelCalls).toBe(6);
    expect(run.ports.ofType('budget.warning')).toEqual([]);
    expect(run.state.terminalReason?.code).toBe('budget.max_model_calls');
  });

  it('a tool-call warning is emitted when the dispatch crosses the fraction', async () => {
    const run = fakeRun({
      limits: { maxToolCalls: 4, warnAtFraction: 0.5 },
      run: async (ctx) => {
        await ctx.tool('demo.read', { id: 'a' });
        await ctx.tool('demo.read', { id: 'b' });
        return { output: 'x' };
      },
    });
    await run.execute();
    expect(run.ports.ofType('budget.warning').map((e) => e.data.budget)).toEqual(['max_tool_calls']);
    const warn = run.ports.events.findIndex((e) => e.type === 'budget.warning');
    expect(warn).toBeGreaterThan(
      run.ports.events.findIndex((e) => e.type === 'tool.completed' && e.data.seq === 1),
    );
    expect(warn).toBeLessThan(
      run.ports.events.findIndex((e) => e.type === 'tool.completed' && e.data.seq === 2),
    );
  });
});
