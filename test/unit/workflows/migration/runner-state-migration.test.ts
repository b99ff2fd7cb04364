import { describe, expect, it } from 'vitest';
import {
  RunStateV1Schema,
  RunStateV2Schema,
  migrate,
  type RunStateV2,
} from '../../../../src/workflows/migration/index.js';
import type { RunState } from '../../../../src/workflows/runner/run-state.js';
import { RulesPolicy } from '../../../../src/workflows/policy/index.js';
import { fakeRun } from '../runner/fake-run.js';

/** The policy of these runs: reads carry `mask.phone`, writes `limit.refund_amount=50`. */
const OBLIGING = new RulesPolicy({
  name: 'obliging',
  version: 'v1',
  rules: [
    {
      id: 'reads',
      when: { effect: 'read' },
      decision: 'allow',
      reasonCodes: ['policy.rule_matched'],
      obligations: ['mask.phone'],
    },
    {
      id: 'writes',
      when: { effect: 'write' },
      decision: 'allow',
      reasonCodes: ['policy.rule_matched'],
      obligations: ['limit.refund_amount=50', 'mask.phone'],
    },
  ],
  default: { decision: 'deny', reasonCodes: ['policy.no_rule_matched'] },
});

/** The version-1 shape of a state this build wrote: what a generation of the previous build carried. */
function asV1(state: RunState): unknown {
  const { obligations: _o, guardrailFindings: _f, outputRetries: _r, ...rest } = state;
  return RunStateV1Schema.parse({ ...JSON.parse(JSON.stringify(rest)), schemaVersion: 1 });
}

/** States the real Runner produces (over in-memory ports), carried as JSON like continue-as-new does. */
describe('run state version 2 in the Runner', () => {
  it('the Runner writes version 2 with the obligations of its policy decisions; it is current as carried', async () => {
    const run = fakeRun({
      policy: OBLIGING,
      guardrails: true,
      run: async (ctx) => {
        await ctx.tool('demo.read', { id: 'a' });
        await ctx.tool('demo.write', { amount: 3 });
        const phone = await ctx.askInput('phone', 'Which phone number?');
        return { output: `noted ${phone}` };
      },
    });
    const done = run.execute();
    await run.ports.untilWaiting();
    expect(run.state.schemaVersion).toBe(2);
    expect(run.state.obligations).toEqual(['mask.phone', 'limit.refund_amount=50']);
    const waiting = migrate<RunStateV2>('run_state', JSON.parse(JSON.stringify(run.state)));
    expect(waiting.applied).toEqual([]);
    expect(waiting.value).toMatchObject({ schemaVersion: 2, status: 'awaiting_input' });
    expect(waiting.value.obligations).toEqual(['mask.phone', 'limit.refund_amount=50']);

    run.runner.gate.receive('provideInput', { slot: 'phone', value: '13800001001', actor: 'ops' });
    const final = await done;
    expect(final.status).toBe('succeeded');
    // mask.phone, noted at dispatch and kept in state, was applied by the output guardrail
    expect(final.output).toBe('noted 138****1001');
    expect(RunStateV2Schema.safeParse(JSON.parse(JSON.stringify(final))).success).toBe(true);
    expect(final.guardrailFindings.map((f) => [f.stage, f.source, f.code])).toEqual(
      expect.arrayContaining([
        ['input', 'provideInput:phone', 'guardrail.input.pii.phone'],
        ['output', 'output', 'guardrail.output.masked'],
      ]),
    );
  });

  it('the version-1 shape of a Runner state migrates to version 2 losing only what v1 never recorded', async () => {
    const run = fakeRun({
      policy: OBLIGING,
      run: async (ctx) => {
        await ctx.tool('demo.read', { id: 'a' });
        await ctx.askInput('slot', 'anything?');
        return { output: 'ok' };
      },
    });
    void run.execute();
    await run.ports.untilWaiting();
    const migrated = migrate<RunStateV2>('run_state', asV1(run.state));
    expect(migrated.applied).toEqual(['run_state@1->2']);
    const { obligations, guardrailFindings, outputRetries, ...rest } = migrated.value;
    expect({ obligations, guardrailFindings, outputRetries }).toEqual({
      obligations: [],
      guardrailFindings: [],
      outputRetries: 0,
    });
    const {
      obligations: _o,
      guardrailFindings: _f,
      outputRetries: _r,
      ...current
    } = JSON.parse(JSON.stringify(run.state)) as RunState;
    expect(rest).toEqual(current);
    run.runner.gate.receive('provideInput', { slot: 'slot', value: 'x', actor: 'ops' });
  });
});
