import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGraphProfile, type GraphDefinition } from '../../../../src/workflows/runner/graph-profile.js';
import {
  DEFAULT_NODE_RETRY,
  nodeRetryPolicy,
  retryDelaySeconds,
} from '../../../../src/workflows/runner/graph-node-retry.js';
import { statePatchCheck } from '../../../../src/workflows/runner/graph-state-patch.js';
import { fakeRun } from './fake-run.js';

const Schema = z.strictObject({ count: z.number().int(), note: z.string().nullable() });
type S = z.output<typeof Schema>;

/** One node that returns `patch` (or retries `retries` times first), then ends. */
function graph(over: Partial<GraphDefinition<S>> = {}, patch: unknown = { count: 1 }, retries = 0) {
  let runs = 0;
  return createGraphProfile<S>({
    name: 'unit.graph',
    version: 'v1',
    start: 'work',
    terminal: ['work'],
    tools: [],
    policies: { default: 'allow_all@v1' },
    completion: { evaluator: { name: 'solution_delivered', version: 'v1' } },
    conditions: {},
    edges: [],
    initialState: () => ({ count: 0, note: null }),
    stateSchema: Schema,
    nodes: [
      {
        id: 'work',
        run: (s) => {
          runs += 1;
          if (runs <= retries) return Promise.resolve({ outcome: 'retry' });
          return Promise.resolve({
            outcome: 'completed',
            statePatch: patch as Partial<S>,
            output: { ...s, ...(patch as object), runs },
          });
        },
      },
    ],
    ...over,
  });
}

describe('graph node checks (unit)', () => {
  it('a patch check accepts the schema keys and refuses other keys and wrong values, naming paths only', () => {
    const check = statePatchCheck(Schema);
    expect(check({ count: 2 })).toBeUndefined();
    expect(check({})).toBeUndefined();
    const issues = check({ count: 'secret-value', other: 1 });
    expect(issues?.map((i) => [i.path, i.code])).toEqual([
      ['count', 'invalid_type'],
      ['', 'unrecognized_keys'],
    ]);
    expect(JSON.stringify(issues)).not.toContain('secret-value');
  });

  it('backoff grows by the coefficient, honours retryAfterSeconds and stops at the maximum', () => {
    const p = nodeRetryPolicy({ maximumIntervalSeconds: 5 });
    expect([1, 2, 3, 4].map((a) => retryDelaySeconds(p, a, undefined))).toEqual([1, 2, 4, 5]);
    expect(retryDelaySeconds(p, 1, 3)).toBe(3);
    expect(retryDelaySeconds(p, 1, 60)).toBe(5);
    expect(retryDelaySeconds(p, 2, 0)).toBe(2); // not a positive delay: the backoff applies
    expect(nodeRetryPolicy(undefined)).toEqual(DEFAULT_NODE_RETRY);
  });

  it('refuses a bad retry policy and a state schema that is not a zod object when the graph is checked', () => {
    for (const retry of [{ maxAttempts: 0 }, { maxAttempts: 1.5 }, { backoffCoefficient: 0.5 }]) {
      const node = { id: 'work', retry, run: () => Promise.resolve({ outcome: 'completed' as const }) };
      // Built on first use: creating it throws nothing, checking it (composeAgentRun, a run) does.
      const profile = graph({ nodes: [node] });
      expect(() => profile.check!()).toThrow(expect.objectContaining({ code: 'graph.invalid' }));
    }
    expect(() => graph({ stateSchema: z.string() as never }).check!()).toThrow(
      expect.objectContaining({ code: 'graph.invalid' }),
    );
  });

  it('refuses a node deadline that is not a positive number of at most 7 days', () => {
    const run = () => Promise.resolve({ outcome: 'completed' as const });
    for (const deadlineSeconds of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 7 * 24 * 3600 + 1]) {
      const profile = graph({ nodes: [{ id: 'work', deadlineSeconds, run }] });
      expect(() => profile.check!()).toThrow(
        expect.objectContaining({
          code: 'graph.invalid',
          message: expect.stringContaining('deadlineSeconds') as string,
        }),
      );
    }
    expect(() => graph({ nodes: [{ id: 'work', deadlineSeconds: 0.5, run }] }).check!()).not.toThrow();
  });

  it('a bad patch fails the run with graph.invalid_state_patch; without the checks it is applied as before', async () => {
    const on = fakeRun({ profile: graph({}, { count: 'x' }) });
    const failed = await on.execute();
    expect(failed.status).toBe('failed');
    expect(failed.terminalReason?.code).toBe('graph.invalid_state_patch');
    expect(on.ports.ofType('step.failed').map((e) => e.data.code)).toEqual(['graph.invalid_state_patch']);
    expect(on.ports.ofType('step.completed')).toHaveLength(0);

    const off = fakeRun({ profile: graph({}, { count: 'x' }), graphNodeChecks: false });
    const done = await off.execute();
    expect(done.status).toBe('succeeded');
    expect(off.ports.ofType('step.failed')).toHaveLength(0);
    expect(off.ports.ofType('step.started').map((e) => e.attemptId)).toEqual([null]);
  });

  it('retry sleeps with backoff and ends with graph.attempts_exhausted after the last attempt', async () => {
    const ok = fakeRun({ profile: graph({}, { count: 1 }, 2) });
    expect((await ok.execute()).status).toBe('succeeded');
    expect(ok.ports.sleeps).toEqual([1000, 2000]);
    expect(ok.ports.ofType('step.started').map((e) => e.data.attempt)).toEqual([1, 2, 3]);

    const over = fakeRun({ profile: graph({}, { count: 1 }, 3) });
    const final = await over.execute();
    expect(final.terminalReason).toMatchObject({
      code: 'graph.attempts_exhausted',
      details: { node: 'work', attempt: 3, maxAttempts: 3 },
    });
    expect(over.ports.sleeps).toEqual([1000, 2000]);
  });
});
