import { describe, expect, it } from 'vitest';
import type { Observation } from '../../../../src/contract/observation.js';
import type { PolicyDecision } from '../../../../src/contract/policy-decision.js';
import { withGateFloor } from '../../../../src/workflows/runner/gate-floor.js';
import { fakeRun, READ_TOOL, WRITE_TOOL } from './fake-run.js';

const allow = (obligations: string[] = []): PolicyDecision => ({
  decision: 'allow',
  policyVersion: 'p@v1',
  reasonCodes: ['policy.rule_matched'],
  obligations,
});

describe('withGateFloor: a catalogue gate holds whatever the policy says', () => {
  it('raises an allowed write to require_confirmation unless the policy already asks that much', () => {
    expect(withGateFloor(allow(), WRITE_TOOL, 'confirmation', true)).toMatchObject({
      raised: true,
      decision: { decision: 'require_confirmation' },
    });
    expect(withGateFloor(allow(['confirm.user.v1']), WRITE_TOOL, 'confirmation', true).raised).toBe(false);
    // Unsigned runs do not enforce the customer's obligation: the floor raises it.
    expect(withGateFloor(allow(['confirm.user.v1']), WRITE_TOOL, 'confirmation', false).raised).toBe(true);
    // An approval needs a person: the customer's own confirmation is not one.
    expect(withGateFloor(allow(['confirm.user.v1']), WRITE_TOOL, 'approval', true).raised).toBe(true);
    for (const d of ['require_confirmation', 'require_human', 'deny'] as const)
      expect(withGateFloor({ ...allow(), decision: d }, WRITE_TOOL, 'approval', true)).toEqual({
        decision: { ...allow(), decision: d },
        raised: false,
      });
    expect(withGateFloor(allow(), READ_TOOL, 'approval', true).raised).toBe(false);
    expect(withGateFloor(allow(), WRITE_TOOL, undefined, true).raised).toBe(false);
  });

  it('in a run: an allowed write with a gate waits for a confirmation (route.gate_enforced); without one it runs', async () => {
    const seen: Observation[] = [];
    const run = fakeRun({
      run: async (ctx) => {
        seen.push(await ctx.tool('demo.write', { amount: 1 }, { gate: 'confirmation' }));
        return { output: 'done' };
      },
    });
    void run.execute();
    await run.ports.untilWaiting();
    expect(run.state.status).toBe('awaiting_confirmation');
    expect(run.ports.toolCalls).toHaveLength(0);
    expect(run.ports.ofType('route.gate_enforced').map((e) => e.data)).toMatchObject([
      { tool: 'demo.write', gate: 'confirmation', policyDecision: 'allow' },
    ]);
  });
});
