import { describe, expect, it } from 'vitest';
import { RunStateV2Schema, migrate, type RunStateV2 } from '../../../src/migration/index.js';
import { fakeRun } from '../runner/fake-run.js';

/** States the real Runner produces (over in-memory ports), carried as JSON like continue-as-new does. */
describe('run state migration on states the Runner produces', () => {
  it('a waiting state and a finished state migrate from version 1 to a valid version 2', async () => {
    const run = fakeRun({
      run: async (ctx) => {
        await ctx.tool('demo.read', { id: 'a' });
        await ctx.tool('demo.write', { amount: 3 });
        const phone = await ctx.askInput('phone', 'Which phone number?');
        return { output: `noted ${phone}` };
      },
    });
    const done = run.execute();
    await run.ports.untilWaiting();
    const waiting = migrate<RunStateV2>('run_state', JSON.parse(JSON.stringify(run.state)));
    expect(waiting.applied).toEqual(['run_state@1->2']);
    expect(waiting.value).toMatchObject({ schemaVersion: 2, status: 'awaiting_input', obligations: [] });
    expect(waiting.value.invocations.map((i) => i.status)).toEqual(['succeeded', 'succeeded']);

    run.runner.gate.onProvideInput({ slot: 'phone', value: '13800001001', actor: 'ops' });
    const final = await done;
    expect(final.status).toBe('succeeded');
    const migrated = migrate<RunStateV2>('run_state', JSON.parse(JSON.stringify(final))).value;
    expect(RunStateV2Schema.safeParse(migrated).success).toBe(true);
    expect(migrated).toMatchObject({
      status: 'succeeded',
      output: 'noted 13800001001',
      guardrailFindings: [],
    });
  });
});
