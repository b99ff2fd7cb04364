import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { builtOnFirstUse } from '../../../src/contract/built-on-first-use.js';
import { sharedAcrossRuns } from '../../../src/contract/shared-across-runs.js';
import { preloadedModules } from '../../../src/worker/bundle.js';

describe('values built on first use', () => {
  it('builtOnFirstUse builds once, on the first call; a throw is retried on the next call', () => {
    let builds = 0;
    const value = builtOnFirstUse(() => ({ n: ++builds }));
    expect(builds).toBe(0);
    expect(value()).toBe(value());
    expect(builds).toBe(1);
    let fail = true;
    const flaky = builtOnFirstUse(() => {
      if (fail) throw new Error('not yet');
      return 'built';
    });
    expect(() => flaky()).toThrow('not yet');
    fail = false;
    expect(flaky()).toBe('built');
  });

  it('sharedAcrossRuns keeps one value per key for every caller, as a preloaded module in the worker', () => {
    let builds = 0;
    const build = () => {
      builds += 1;
      return z.object({ a: z.string() }).strict();
    };
    // Two "runs": two module instances would each call sharedAcrossRuns with the same key.
    const first = sharedAcrossRuns('test/shared-across-runs#schema', build);
    const second = sharedAcrossRuns('test/shared-across-runs#schema', build);
    expect(first()).toBe(second());
    expect(builds).toBe(1);
    // A shared schema parses as a fresh one would, through a run's own lazy wrapper too.
    const wrapped = z.lazy(second);
    expect(wrapped.safeParse({ a: 'x' }).success).toBe(true);
    expect(wrapped.safeParse({ a: 'x', b: 1 }).success).toBe(false);
    // The worker preloads the module, so its cache outlives a run's module instances.
    expect(preloadedModules.some((m) => /contract[\\/]shared-across-runs\.(ts|js)$/.test(m))).toBe(true);
  });
});
