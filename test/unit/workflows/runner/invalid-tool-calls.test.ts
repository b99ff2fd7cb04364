import { describe, expect, it } from 'vitest';
import { createGoalProfile } from '../../../../src/workflows/runner/goal-profile.js';
import type { InvalidToolCall, ModelCallInput } from '../../../../src/workflows/runner/ports.js';
import { decision, fakeRun } from './fake-run.js';

function goal() {
  return createGoalProfile({
    name: 'test.goal',
    version: 'v1',
    instructions: 'answer',
    tools: ['demo.read'],
    policies: { default: 'allow_all@v1' },
    completion: { evaluator: { name: 'solution_delivered', version: 'v1' } },
  });
}

const NOT_JSON: InvalidToolCall = {
  id: 'bad-1',
  name: 'demo_read__v1',
  tool: 'demo.read@v1',
  code: 'tool.arguments_not_json',
  message: 'the arguments of "demo_read__v1" are not valid JSON (9 characters) and nothing was run',
  argsDigest: 'sha256:aaaa',
  argsChars: 9,
};
const NOT_OFFERED: InvalidToolCall = {
  id: 'bad-2',
  name: 'demo_write__v1',
  code: 'tool.not_offered',
  message: 'the tool "demo_write__v1" was not offered in this request and nothing was run',
  argsDigest: 'sha256:bbbb',
  argsChars: 14,
};

/** A model that sends `bad` first, then a valid read, then its answer. */
const recovers =
  (bad: InvalidToolCall) =>
  (_input: ModelCallInput, call: number): ReturnType<typeof decision> => {
    if (call === 1) return decision({ text: '', stopReason: 'tool_calls', invalidToolCalls: [bad] });
    if (call === 2)
      return decision({
        text: '',
        stopReason: 'tool_calls',
        toolCalls: [{ id: 'ok-1', name: 'demo.read', version: 'v1', args: { id: 'A1' } }],
      });
    return decision({ text: 'Read A1.' });
  };

describe('invalid tool calls (agent-run-invalid-tool-calls-v1)', () => {
  for (const bad of [NOT_JSON, NOT_OFFERED]) {
    it(`${bad.code}: the model reads the error, calls again and the run completes; nothing ran for it`, async () => {
      const run = fakeRun({ invalidToolCalls: true, profile: goal(), model: recovers(bad) });
      const final = await run.execute();
      expect(final.status).toBe('succeeded');
      expect(final.output).toBe('Read A1.');
      expect(run.ports.modelCalls.map((c) => c.invalidToolCalls)).toEqual(['report', 'report', 'report']);
      // Only the valid call reached a tool activity.
      expect(run.ports.toolCalls.map((c) => [c.tool, c.args])).toEqual([['demo.read', { id: 'A1' }]]);
      // The second request tells the model: a harness notice, then the error as data.
      const told = run.ports.modelCalls[1]!.newMessages;
      expect(told).toHaveLength(2);
      expect(told[0]).toMatchObject({ role: 'user', trust: 'system' });
      expect(told[0]!.content).not.toContain(bad.name);
      expect(told[1]).toMatchObject({ role: 'user', trust: 'untrusted' });
      expect(JSON.parse(told[1]!.content)).toMatchObject({
        status: 'rejected',
        seq: -1,
        error: { code: bad.code, message: bad.message },
      });
      const failed = run.ports.ofType('tool.failed');
      expect(failed.map((e) => e.data)).toEqual([
        expect.objectContaining({ status: 'rejected', errorCode: bad.code, message: bad.message }),
      ]);
      expect(run.ports.ofType('tool.proposed')[0]!.data).toMatchObject({
        proposalId: bad.id,
        invalid: bad.code,
      });
      // Model calls 3, the invalid call and the read: 5 steps.
      expect(final.budget).toMatchObject({ steps: 5, modelCalls: 3, toolCalls: 1 });
    });
  }

  it('valid calls of the same answer still run; their results come before the notice', async () => {
    const run = fakeRun({
      invalidToolCalls: true,
      profile: goal(),
      model: (_i, call) =>
        call === 1
          ? decision({
              text: '',
              stopReason: 'tool_calls',
              toolCalls: [{ id: 'ok-1', name: 'demo.read', version: 'v1', args: { id: 'A1' } }],
              invalidToolCalls: [NOT_OFFERED],
            })
          : decision({ text: 'done' }),
    });
    const final = await run.execute();
    expect(final.status).toBe('succeeded');
    expect(run.ports.toolCalls).toHaveLength(1);
    expect(run.ports.modelCalls[1]!.newMessages.map((m) => [m.role, m.trust])).toEqual([
      ['tool', 'untrusted'],
      ['user', 'system'],
      ['user', 'untrusted'],
    ]);
  });

  it('a model that keeps sending the same garbage ends with the duplicate-call guard', async () => {
    const run = fakeRun({
      invalidToolCalls: true,
      profile: goal(),
      model: () => decision({ text: '', stopReason: 'tool_calls', invalidToolCalls: [NOT_JSON] }),
    });
    const final = await run.execute();
    expect(final.status).toBe('budget_exhausted');
    expect(final.terminalReason).toMatchObject({
      code: 'budget.duplicate_call',
      details: { detail: 'invalid:demo.read@v1#sha256:aaaa' },
    });
    expect(run.ports.modelCalls).toHaveLength(3);
    expect(run.ports.toolCalls).toHaveLength(0);
  });

  it('a model that keeps sending different garbage ends with the no-progress guard', async () => {
    const run = fakeRun({
      invalidToolCalls: true,
      profile: goal(),
      model: (_i, call) =>
        decision({
          text: '',
          stopReason: 'tool_calls',
          invalidToolCalls: [{ ...NOT_JSON, argsDigest: `sha256:${call}` }],
        }),
    });
    const final = await run.execute();
    expect(final.status).toBe('budget_exhausted');
    expect(final.terminalReason).toMatchObject({ code: 'budget.no_progress' });
    // 8 steps without progress: 4 model calls and 4 invalid calls.
    expect(run.ports.modelCalls).toHaveLength(4);
    expect(run.ports.toolCalls).toHaveLength(0);
    expect(run.ports.ofType('budget.exhausted')).toHaveLength(1);
  });

  it('…and with a wider progress guard, with max_steps', async () => {
    const run = fakeRun({
      invalidToolCalls: true,
      limits: { maxStepsWithoutProgress: 1000, maxSteps: 7 },
      profile: goal(),
      model: (_i, call) =>
        decision({
          text: '',
          stopReason: 'tool_calls',
          invalidToolCalls: [{ ...NOT_OFFERED, argsDigest: `sha256:${call}` }],
        }),
    });
    const final = await run.execute();
    expect(final.terminalReason).toMatchObject({ code: 'budget.max_steps' });
    expect(final.budget.steps).toBe(7);
  });

  it('without the patch the model activity is not asked (it fails such calls, as before)', async () => {
    const run = fakeRun({ profile: goal(), model: () => decision({ text: 'hi' }) });
    await run.execute();
    expect(run.ports.modelCalls[0]).not.toHaveProperty('invalidToolCalls');
  });

  it('a profile that does not ask is not given them, even with the patch', async () => {
    const run = fakeRun({
      invalidToolCalls: true,
      run: async (ctx) => ({ output: (await ctx.model('decide', { messages: [] })).text }),
    });
    await run.execute();
    expect(run.ports.modelCalls[0]).not.toHaveProperty('invalidToolCalls');
  });

  it('bounds what it keeps of the model text: name and id cut, no argument text', async () => {
    const long = 'n'.repeat(500);
    const run = fakeRun({
      invalidToolCalls: true,
      profile: goal(),
      model: (_i, call) =>
        call === 1
          ? decision({
              text: '',
              stopReason: 'tool_calls',
              invalidToolCalls: [{ ...NOT_OFFERED, id: long, name: long, message: long }],
            })
          : decision({ text: 'done' }),
    });
    await run.execute();
    const failed = run.ports.ofType('tool.failed')[0]!.data;
    expect(failed.tool).toBe('n'.repeat(64));
    expect((failed.message as string).length).toBe(300);
    expect(failed.details).toMatchObject({ proposalId: 'n'.repeat(64), name: 'n'.repeat(64) });
  });
});
