import { z } from 'zod';
import {
  createGraphProfile,
  type AgentRunDefinition,
  type GraphDefinition,
  type NodeResult,
} from '../../../src/workflows/index.js';

/** Test only: the state of `graph.checks@v1`. */
const ChecksStateSchema = z.strictObject({
  scenario: z.enum(['retry', 'bad_patch', 'scope', 'plain']),
  failuresLeft: z.number().int().nonnegative(),
  tries: z.number().int().nonnegative(),
  refusedCode: z.string().nullable(),
  readStatus: z.string().nullable(),
});
type ChecksState = z.output<typeof ChecksStateSchema>;

/** The retry policy of the `flaky` node: 3 attempts, waits of 1 s then 2 s. */
export const FLAKY_RETRY = { maxAttempts: 3, initialIntervalSeconds: 1, backoffCoefficient: 2 } as const;

/**
 * Test only: `graph.checks@v1`, a graph that exercises the graph node checks on the real server. The
 * task picks the path (`scenario`):
 * - `retry`: `flaky` answers `retry` `failures` times, then completes (at most {@link FLAKY_RETRY});
 * - `bad_patch`: `bad_patch` returns a patch that does not fit the state schema;
 * - `scope`: `scoped` may call only `order.read`, and tries `logistics.read` first;
 * - anything else: straight to `done`.
 */
const graph: GraphDefinition<ChecksState> = {
  name: 'graph.checks',
  version: 'v1',
  start: 'route',
  terminal: ['done'],
  tools: ['order.read', 'logistics.read'],
  policies: { default: 'allow_all@v1' },
  completion: { evaluator: { name: 'solution_delivered', version: 'v1' } },
  stateSchema: ChecksStateSchema,
  initialState: (task) => {
    const scenario = ChecksStateSchema.shape.scenario.safeParse(task.scenario);
    const failures = typeof task.failures === 'number' ? task.failures : 0;
    return {
      scenario: scenario.success ? scenario.data : 'plain',
      failuresLeft: failures,
      tries: 0,
      refusedCode: null,
      readStatus: null,
    };
  },
  conditions: {
    is_retry: (s) => s.scenario === 'retry',
    is_bad_patch: (s) => s.scenario === 'bad_patch',
    is_scope: (s) => s.scenario === 'scope',
  },
  edges: [
    { from: 'route', to: 'flaky', when: 'is_retry' },
    { from: 'route', to: 'bad_patch', when: 'is_bad_patch' },
    { from: 'route', to: 'scoped', when: 'is_scope' },
    { from: 'route', to: 'done' },
    { from: 'flaky', to: 'done' },
    { from: 'bad_patch', to: 'done' },
    { from: 'scoped', to: 'done' },
  ],
  nodes: [
    { id: 'route', run: () => Promise.resolve({ outcome: 'completed' }) },
    {
      id: 'flaky',
      retry: FLAKY_RETRY,
      run: (s) =>
        Promise.resolve(
          s.failuresLeft > 0
            ? { outcome: 'retry', statePatch: { failuresLeft: s.failuresLeft - 1, tries: s.tries + 1 } }
            : { outcome: 'completed', statePatch: { tries: s.tries + 1 } },
        ),
    },
    {
      id: 'bad_patch',
      // A node with a bug: a count as text and a key the state does not have.
      run: () =>
        Promise.resolve({
          outcome: 'completed',
          statePatch: { tries: 'many', stray: true },
        } as unknown as NodeResult<ChecksState>),
    },
    {
      id: 'scoped',
      capabilities: ['order.read'],
      async run(_s, ctx) {
        const refused = await ctx.tool('logistics.read', { orderId: 'ORD-1001' });
        const read = await ctx.tool('order.read', { orderId: 'ORD-1001' });
        return {
          outcome: 'completed',
          statePatch: { refusedCode: refused.errorCode ?? null, readStatus: read.status },
        };
      },
    },
    {
      id: 'done',
      run: (s) =>
        Promise.resolve({
          outcome: 'completed',
          output: {
            scenario: s.scenario,
            tries: s.tries,
            refusedCode: s.refusedCode,
            readStatus: s.readStatus,
          },
        }),
    },
  ],
};

/** Test only: the workflow-side definition that adds `graph.checks@v1` to the tests' bundle. */
export const graphChecksDefinition: AgentRunDefinition = {
  profiles: [createGraphProfile(graph)],
  policies: [],
};
