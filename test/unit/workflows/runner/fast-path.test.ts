import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../../src/contract/tool.js';
import { RulesPolicy } from '../../../../src/workflows/policy/index.js';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import { featuresOf } from '../../../../src/workflows/runner/run-features.js';
import { READ_TOOL } from './fake-run.js';
import { fakeRun } from './fake-run.js';

const FAST_READ: ToolDefinition = { ...READ_TOOL, fast: { timeoutMs: 500 } };

/** demo.read with id `ask` needs a confirmation; every other call is allowed. */
const confirmAsk = new RulesPolicy({
  name: 'confirm_ask',
  version: 'v1',
  customReasonCodes: ['demo.ask', 'demo.ok'],
  rules: [
    {
      id: 'ask',
      when: { tool: 'demo.read', stage: 'dispatch', args: [{ pointer: '/id', op: 'eq', value: 'ask' }] },
      decision: 'require_confirmation',
      reasonCodes: ['demo.ask'],
    },
    { id: 'ok', when: {}, decision: 'allow', reasonCodes: ['demo.ok'] },
  ],
  default: { decision: 'deny', reasonCodes: ['policy.no_rule_matched'] },
});

function reads(ids: string[]) {
  return async (ctx: RunContext) => {
    for (const id of ids) await ctx.tool('demo.read', { id });
    return { output: 'finished' };
  };
}

/** Which calls the runner hands the host as fast reads (docs/runner.md, "Fast path"). */
describe('fast path: which calls are fast reads', () => {
  it('an allowed call of a fast read carries its timeout; a plain read does not', async () => {
    const run = fakeRun({
      tools: [FAST_READ, { ...READ_TOOL, name: 'demo.plain' }],
      features: featuresOf({ fastPath: true }),
      run: async (ctx) => {
        await ctx.tool('demo.read', { id: 'a' });
        await ctx.tool('demo.plain', { id: 'b' });
        return { output: 'finished' };
      },
    });
    expect((await run.execute()).status).toBe('succeeded');
    expect(run.ports.fastMs).toEqual([500, undefined]);
  });

  it('without the start feature a fast read is a regular activity', async () => {
    const run = fakeRun({ tools: [FAST_READ], features: featuresOf({}), run: reads(['a']) });
    expect((await run.execute()).status).toBe('succeeded');
    expect(run.ports.fastMs).toEqual([undefined]);
  });

  it('a fast read its policy asks a person about takes the regular activity after the approval', async () => {
    const run = fakeRun({
      tools: [FAST_READ],
      policy: confirmAsk,
      features: featuresOf({ fastPath: true }),
      run: reads(['ask', 'a']),
    });
    const done = run.execute();
    await run.ports.untilWaiting();
    expect(run.ports.toolCalls).toHaveLength(0);
    run.runner.gate.receive('approve', { actionId: run.state.pendingAction!.actionId, actor: 'ops' });
    expect((await done).status).toBe('succeeded');
    expect(run.ports.toolCalls.map((c) => c.args['id'])).toEqual(['ask', 'a']);
    expect(run.ports.fastMs).toEqual([undefined, 500]);
  });
});
