import { describe, expect, it } from 'vitest';
import { ALL_FEATURES, featuresOf } from '../../../../src/workflows/runner/run-features.js';
import { fakeRun } from './fake-run.js';

/** An input request's expiry (agent-run-human-request-expiry-v1): the declared default, recorded. */
describe('input request expiry (in memory)', () => {
  it('takes the declared default, recorded as human.request_expired and human.decided by system', async () => {
    const run = fakeRun({
      features: ALL_FEATURES,
      run: async (ctx) => ({ output: await ctx.askInput('tier', 'which tier?', { expiryDefault: 'basic' }) }),
    });
    const done = run.execute();
    await run.ports.untilWaiting();
    expect(run.state.pendingAction?.expiresAt).toBe('2026-01-01T00:10:00.000Z');
    expect(run.state.humanRequest?.expiresAt).toBe('2026-01-01T00:10:00.000Z');
    run.ports.expireWait();
    const final = await done;
    expect(final.status).toBe('succeeded');
    expect(final.output).toBe('basic');
    expect(run.ports.ofType('human.request_expired')[0]?.data).toMatchObject({
      kind: 'input',
      slot: 'tier',
      outcome: 'default_taken',
    });
    expect(run.ports.ofType('human.decided').at(-1)?.data).toMatchObject({
      actor: 'system',
      code: 'input.expired',
      defaulted: true,
    });
  });

  it('a run without the feature asks without an expiry', async () => {
    const run = fakeRun({
      features: featuresOf({}),
      run: async (ctx) => ({ output: await ctx.askInput('tier', 'which tier?') }),
    });
    void run.execute();
    await run.ports.untilWaiting();
    expect(run.state.pendingAction?.expiresAt).toBeNull();
    expect(run.state.humanRequest?.expiresAt).toBe('');
    expect(run.ports.waits.at(-1)?.timeoutMs).toBeUndefined();
  });
});
