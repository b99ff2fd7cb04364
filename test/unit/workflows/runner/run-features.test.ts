/** The runner's features object: one question per behaviour, asked where it matters and nowhere else. */
import { describe, expect, it } from 'vitest';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import {
  ALL_FEATURES,
  IN_MEMORY_FEATURES,
  RUN_FEATURES,
  featuresOf,
  type RunFeature,
  type RunFeatures,
} from '../../../../src/workflows/runner/run-features.js';
import type { ToolActivityOutcome } from '../../../../src/workflows/runner/ports.js';
import { fakeRun, READ_TOOL, succeeded, WRITE_TOOL } from './fake-run.js';

/** Features that answer `on` for every feature and log each question, as a patch-asking host would. */
function recording(on: boolean): RunFeatures & { readonly asked: RunFeature[] } {
  const asked: RunFeature[] = [];
  return {
    asked,
    on(feature) {
      asked.push(feature);
      return on;
    },
  };
}

const writeOnce = async (ctx: RunContext) => {
  await ctx.tool('demo.write', { amount: 5 });
  return { output: 'finished' };
};

describe('run features', () => {
  it('featuresOf: a boolean is the answer, a function is asked every time, a feature not named is off', () => {
    let n = 0;
    const f = featuresOf({ dataTaint: true, writeRecovery: () => ++n > 1 });
    expect(f.on('dataTaint')).toBe(true);
    expect(f.on('writeRecovery')).toBe(false);
    expect(f.on('writeRecovery')).toBe(true);
    expect(n).toBe(2);
    expect(f.on('boundedValues')).toBe(false);
    expect(RUN_FEATURES.every((x) => ALL_FEATURES.on(x))).toBe(true);
    expect(RUN_FEATURES.filter((x) => IN_MEMORY_FEATURES.on(x))).toEqual([
      'trustedIdentifiers',
      'outputTextLimit',
    ]);
  });

  it('a clean write asks no write-path feature: a patch-asking host records no marker for what did not happen', async () => {
    const features = recording(true);
    const run = fakeRun({ features, run: writeOnce });
    expect((await run.execute()).status).toBe('succeeded');
    expect(features.asked).not.toContain('writeRecovery');
    expect(features.asked).not.toContain('writeExhaustionToPerson');
    expect(features.asked).not.toContain('writeRetryNeedsIdempotency');
    expect(features.asked).not.toContain('modelFallback');
  });

  it('a lost write asks writeRecovery, and the answer decides: on retries under the same key, off waits for a person', async () => {
    const lostOnce = (): ((i: Parameters<typeof succeeded>[0]) => ToolActivityOutcome) => {
      let n = 0;
      return (i) => (++n === 1 ? { kind: 'lost', message: 'activity timed out (heartbeat)' } : succeeded(i));
    };
    const on = recording(true);
    const retried = fakeRun({
      features: on,
      // Declared idempotent by its key: retried without asking anyone (write-retry-idempotency.test.ts).
      tools: [READ_TOOL, { ...WRITE_TOOL, idempotentByKey: true }],
      tool: lostOnce(),
      resolve: () => ({ kind: 'reconciled_not_applied' }),
      run: writeOnce,
    });
    expect((await retried.execute()).status).toBe('succeeded');
    expect(on.asked).toContain('writeRecovery');
    expect(on.asked).not.toContain('writeRetryNeedsIdempotency');
    expect(retried.ports.toolCalls).toHaveLength(2);

    const off = recording(false);
    const seen: unknown[] = [];
    const held = fakeRun({
      features: off,
      tool: lostOnce(),
      resolve: () => ({ kind: 'reconciled_not_applied' }),
      run: async (ctx: RunContext) => {
        seen.push(await ctx.tool('demo.write', { amount: 5 }));
        return { output: 'finished' };
      },
    });
    await held.execute();
    expect(off.asked).toContain('writeRecovery');
    // Without recovery the write is not tried again: one attempt, and the profile sees it did not succeed.
    expect(held.ports.toolCalls).toHaveLength(1);
    expect(seen[0]).not.toMatchObject({ status: 'succeeded' });
  });
});
