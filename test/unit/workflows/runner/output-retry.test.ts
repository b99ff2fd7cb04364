import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGoalProfile } from '../../../../src/workflows/runner/goal-profile.js';
import { OUTPUT_FEEDBACK_KEY, createGraphProfile } from '../../../../src/workflows/runner/graph-profile.js';
import type { ModelCallInput } from '../../../../src/workflows/runner/ports.js';
import type { BlockedOutputChoice, BlockedOutputFeedback } from '../../../../src/workflows/runner/profile.js';
import { decision, fakeRun } from './fake-run.js';

const CLAIM = 'Your refund has been created.';
const HONEST = 'I could not create a refund: nothing was refunded.';
const DELIVERED = { evaluator: { name: 'solution_delivered', version: 'v1' } } as const;

function goal(onBlockedOutput?: BlockedOutputChoice) {
  return createGoalProfile({
    name: 'test.goal',
    version: 'v1',
    instructions: 'answer',
    tools: [],
    policies: { default: 'allow_all@v1' },
    completion: DELIVERED,
    ...(onBlockedOutput ? { onBlockedOutput } : {}),
  });
}

/** A model that claims a refund until it has been told `n` times that the claim was blocked. */
const claimsUntilTold =
  (n: number) =>
  (input: ModelCallInput, call: number): ReturnType<typeof decision> =>
    decision({ text: call <= n ? CLAIM : HONEST });

describe('a blocked output is composed again when the profile retries', () => {
  it('goal profile: the model is told what was blocked, answers again, and the run succeeds', async () => {
    const run = fakeRun({
      guardrails: true,
      profile: goal({ action: 'retry', maxRetries: 2 }),
      model: claimsUntilTold(1),
    });
    const final = await run.execute();
    expect(final.status).toBe('succeeded');
    expect(final.output).toBe(HONEST);
    expect(final.outputRetries).toBe(1);
    expect(run.ports.modelCalls).toHaveLength(2);
    const told = run.ports.modelCalls[1]!.newMessages;
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ role: 'user', trust: 'system' });
    expect(told[0]!.content).toContain('guardrail.output.unsupported_claim');
    expect(told[0]!.content).toContain('claim.refund');
    expect(told[0]!.content).not.toContain(CLAIM);
    const checks = run.ports.ofType('guardrail.output_checked').map((e) => e.data.verdict);
    expect(checks).toEqual(['block', 'pass']);
    const retried = run.ports.ofType('guardrail.output_retried');
    expect(retried.map((e) => e.data)).toEqual([
      {
        attempt: 1,
        maxRetries: 2,
        reasonCodes: ['guardrail.output.unsupported_claim'],
        findings: [{ code: 'guardrail.output.unsupported_claim', ruleId: 'claim.refund', path: '' }],
      },
    ]);
    expect(final.guardrailFindings.some((f) => f.stage === 'output' && f.action === 'block')).toBe(true);
    // the retry is a step; its model call counts too
    expect(final.budget).toMatchObject({ steps: 3, modelCalls: 2 });
  });

  it('when retries run out the run ends failed with guardrail.output_blocked', async () => {
    const run = fakeRun({
      guardrails: true,
      profile: goal({ action: 'retry', maxRetries: 2 }),
      model: claimsUntilTold(99),
    });
    const final = await run.execute();
    expect(final.status).toBe('failed');
    expect(final.terminalReason).toMatchObject({
      code: 'guardrail.output_blocked',
      details: { reasonCodes: ['guardrail.output.unsupported_claim'], retries: 2, maxRetries: 2 },
    });
    expect(final.output).toBeNull();
    expect(run.ports.modelCalls).toHaveLength(3);
    expect(run.ports.ofType('guardrail.output_retried').map((e) => e.data.attempt)).toEqual([1, 2]);
    expect(run.ports.ofType('guardrail.output_checked')).toHaveLength(3);
  });

  it('a retry is a step: a run out of steps ends budget_exhausted instead of retrying', async () => {
    const run = fakeRun({
      guardrails: true,
      profile: goal({ action: 'retry', maxRetries: 3 }),
      model: claimsUntilTold(99),
      limits: { maxSteps: 2 },
    });
    const final = await run.execute();
    expect(final.status).toBe('budget_exhausted');
    expect(final.terminalReason?.code).toBe('budget.max_steps');
    expect(run.ports.modelCalls).toHaveLength(1);
  });

  it.each([
    ['the default (fail)', undefined, true],
    ['retry, but the workflow patch says no', { action: 'retry', maxRetries: 2 } as const, false],
  ])('%s: one composition, then failed', async (_name, choice, enabled) => {
    const run = fakeRun({
      guardrails: true,
      profile: goal(choice),
      model: claimsUntilTold(99),
      outputRetryEnabled: enabled,
    });
    const final = await run.execute();
    expect(final.status).toBe('failed');
    expect(final.terminalReason).toMatchObject({
      code: 'guardrail.output_blocked',
      details: { reasonCodes: ['guardrail.output.unsupported_claim'] },
    });
    expect(run.ports.modelCalls).toHaveLength(1);
    expect(run.ports.ofType('guardrail.output_retried')).toHaveLength(0);
    expect(final.outputRetries).toBe(0);
  });

  it('graph profile: the terminal node runs again with the findings in its state', async () => {
    const seen: (BlockedOutputFeedback | undefined)[] = [];
    const profile = createGraphProfile<{ [OUTPUT_FEEDBACK_KEY]?: BlockedOutputFeedback }>({
      name: 'test.graph',
      version: 'v1',
      policies: { default: 'allow_all@v1' },
      start: 'compose',
      terminal: ['compose'],
      tools: [],
      completion: DELIVERED,
      conditions: {},
      edges: [],
      initialState: () => ({}),
      stateSchema: z.object({}),
      onBlockedOutput: { action: 'retry', maxRetries: 1 },
      nodes: [
        {
          id: 'compose',
          run: (s) => {
            const feedback = s[OUTPUT_FEEDBACK_KEY];
            seen.push(feedback);
            return Promise.resolve({ outcome: 'completed', output: { message: feedback ? HONEST : CLAIM } });
          },
        },
      ],
    });
    const run = fakeRun({ guardrails: true, profile });
    const final = await run.execute();
    expect(final.status).toBe('succeeded');
    expect(final.output).toEqual({ message: HONEST });
    expect(seen.map((f) => f?.reasonCodes)).toEqual([undefined, ['guardrail.output.unsupported_claim']]);
    expect(seen[1]?.findings).toEqual([
      { code: 'guardrail.output.unsupported_claim', ruleId: 'claim.refund', path: '/message' },
    ]);
    expect(run.ports.ofType('step.started').map((e) => e.data.stepId)).toEqual(['compose', 'compose']);
  });

  it('a retry count outside 1..5 is refused when the profile is created', () => {
    for (const maxRetries of [0, 6, 1.5]) {
      expect(() => goal({ action: 'retry', maxRetries })).toThrow(
        expect.objectContaining({ code: 'profile.invalid' }),
      );
    }
  });
});
