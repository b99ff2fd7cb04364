import { describe, expect, it } from 'vitest';
import { RulesPolicy } from '../../../../src/workflows/policy/index.js';
import {
  actionSummary,
  MAX_ACTION_SUMMARY_LENGTH,
  type ActionDescriber,
} from '../../../../src/workflows/runner/action-summary.js';
import { createGoalProfile } from '../../../../src/workflows/runner/goal-profile.js';
import type { Profile } from '../../../../src/workflows/runner/profile.js';
import { decision, fakeRun, WRITE_TOOL } from './fake-run.js';

/** demo.write needs a person's approval at dispatch; everything else is allowed. */
const approveWrites = new RulesPolicy({
  name: 'approve_writes',
  version: 'v1',
  customReasonCodes: ['demo.approve', 'demo.rest'],
  rules: [
    {
      id: 'approve',
      when: { tool: 'demo.write', stage: 'dispatch' },
      decision: 'require_human',
      reasonCodes: ['demo.approve'],
    },
    { id: 'rest', when: {}, decision: 'allow', reasonCodes: ['demo.rest'] },
  ],
  default: { decision: 'deny', reasonCodes: ['policy.no_rule_matched'] },
});

const SECRET = 'sk-live-4f9d2c7a8b1e6f3d0a5c9e2b7d4f1a8c';

describe('actionSummary: how a person reads a tool call', () => {
  it('without a describer: tool@version and the canonical arguments (as every run before)', () => {
    expect(actionSummary(undefined, WRITE_TOOL, { amount: 7 })).toBe('demo.write@v1 {"amount":7}');
  });

  it("with a describer: the profile's phrasing, given the tool, version and arguments", () => {
    const seen: unknown[] = [];
    const describe: ActionDescriber = (a) => {
      seen.push(a);
      return `  Pay ${String(a.args.amount)} EUR to the customer  `;
    };
    expect(actionSummary(describe, WRITE_TOOL, { amount: 7 })).toBe('Pay 7 EUR to the customer');
    expect(seen).toEqual([{ tool: 'demo.write', version: 'v1', args: { amount: 7 } }]);
  });

  it('masks a secret the phrasing quotes, and cuts long text', () => {
    const masked = actionSummary(() => `use key ${SECRET} now`, WRITE_TOOL, { amount: 1 });
    expect(masked).not.toContain(SECRET);
    expect(masked).toContain('[secret]');
    const long = actionSummary(() => 'x'.repeat(1_000_000), WRITE_TOOL, { amount: 1 });
    expect(long).toHaveLength(MAX_ACTION_SUMMARY_LENGTH);
  });

  it('a describer that throws, or answers blank or not a string, gets the default text', () => {
    const fallback = 'demo.write@v1 {"amount":3}';
    const throwing: ActionDescriber = () => {
      throw new Error('bug in the phrasing');
    };
    expect(actionSummary(throwing, WRITE_TOOL, { amount: 3 })).toBe(fallback);
    expect(actionSummary(() => '   ', WRITE_TOOL, { amount: 3 })).toBe(fallback);
    expect(actionSummary(() => undefined, WRITE_TOOL, { amount: 3 })).toBe(fallback);
    expect(actionSummary((() => 42) as unknown as ActionDescriber, WRITE_TOOL, { amount: 3 })).toBe(fallback);
  });
});

describe("a goal profile's describeAction in the run's human request", () => {
  function goalProfile(describeAction?: ActionDescriber): Profile {
    return createGoalProfile({
      name: 'test.profile',
      version: 'v1',
      instructions: 'pay',
      tools: ['demo.write'],
      policies: { default: 'approve_writes@v1' },
      completion: { evaluator: { name: 'solution_delivered', version: 'v1' } },
      ...(describeAction ? { describeAction } : {}),
    });
  }

  async function waitingSummary(profile: Profile) {
    const run = fakeRun({
      policy: approveWrites,
      profile,
      model: (_input, n) =>
        n === 1
          ? decision({ toolCalls: [{ id: 'c1', name: 'demo.write', version: 'v1', args: { amount: 7 } }] })
          : decision({ text: 'paid' }),
    });
    const done = run.execute();
    await run.ports.untilWaiting();
    const summary = run.state.humanRequest?.requestSummary;
    const requested = run.ports.ofType('human.requested')[0]?.data as
      { request: { requestSummary: string } } | undefined;
    run.runner.gate.receive('approve', { actionId: run.state.pendingAction!.actionId, actor: 'ops' });
    const final = await done;
    return { summary, requested: requested?.request.requestSummary, final, run };
  }

  it('the approver reads the phrasing in the state and the human.requested event; the approval still binds the call', async () => {
    const { summary, requested, final, run } = await waitingSummary(
      goalProfile(({ args }) => `Pay ${String(args.amount)} EUR to the customer`),
    );
    expect(summary).toBe('Pay 7 EUR to the customer');
    expect(requested).toBe('Pay 7 EUR to the customer');
    expect(final.status).toBe('succeeded');
    expect(run.ports.toolCalls).toHaveLength(1);
    expect(run.ports.toolCalls[0]?.args).toEqual({ amount: 7 });
  });

  it('a profile without one shows the default text', async () => {
    const { summary } = await waitingSummary(goalProfile());
    expect(summary).toBe('demo.write@v1 {"amount":7}');
  });
});
