import { z } from 'zod';
import {
  createGraphProfile,
  type AgentRunDefinition,
  type GraphDefinition,
  type NodeContext,
  type RunContext,
} from '../../../src/workflows/index.js';

/** Test only: the read tool of `graph.steps@v1` that fails its first attempts (test/support/steps-tools.ts). */
export const FLAKY_READ_TOOL = 'steps.flaky_read';

/** Test only: the state of `graph.steps@v1`. */
const StepsStateSchema = z.strictObject({
  scenario: z.enum(['contract', 'deadline', 'cancel', 'read', 'plain']),
  /** How many attempts of `slow` outlive its deadline; how many attempts of the read fail. */
  failures: z.number().int().min(0).max(3),
  /** The attempt of the node whose result stood (its node context is in `test.node_context`). */
  seenAttempt: z.number().int().nullable(),
  readStatus: z.string().nullable(),
});
type StepsState = z.output<typeof StepsStateSchema>;

/**
 * Record what a node saw of its node context as a `test.node_context` event (the output guardrail
 * would block dates in the output); its attempt, or null when it got none (no step contracts).
 */
function sight(ctx: RunContext, node: NodeContext | undefined): number | null {
  if (!node) return null;
  const { runId, stepId, attempt, attemptId, deadline, cancelled, cancelReason } = node;
  const seen = { runId, stepId, attempt, attemptId, deadline, cancelled, cancelReason };
  ctx.emit('test.node_context', { ...seen, runDeadline: ctx.deadline });
  return attempt;
}

/**
 * Test only: `graph.steps@v1`, the node and step contracts on the real server. The task picks the
 * path (`scenario`):
 * - `contract`: `inspect` (deadline 60 s) returns what its node context says;
 * - `deadline`: `slow` (deadline 2 s, 2 attempts) waits on 1 s timers until `node.cancelled` in its
 *   first `failures` attempts, else completes at once;
 * - `cancel`: `parked` waits on a 10 min timer and records what it saw when the run is cancelled;
 * - `read`: `read` calls `steps.flaky_read`, which fails its first `failures` attempts;
 * - anything else: straight to `done`.
 */
const graph: GraphDefinition<StepsState> = {
  name: 'graph.steps',
  version: 'v1',
  start: 'route',
  terminal: ['done'],
  tools: [FLAKY_READ_TOOL],
  policies: { default: 'allow_all@v1' },
  completion: { evaluator: { name: 'solution_delivered', version: 'v1' } },
  stateSchema: StepsStateSchema,
  initialState: (task) => {
    const scenario = StepsStateSchema.shape.scenario.safeParse(task.scenario);
    const failures = StepsStateSchema.shape.failures.safeParse(task.failures);
    return {
      scenario: scenario.success ? scenario.data : 'plain',
      failures: failures.success ? failures.data : 0,
      seenAttempt: null,
      readStatus: null,
    };
  },
  conditions: {
    is_contract: (s) => s.scenario === 'contract',
    is_deadline: (s) => s.scenario === 'deadline',
    is_cancel: (s) => s.scenario === 'cancel',
    is_read: (s) => s.scenario === 'read',
  },
  edges: [
    { from: 'route', to: 'inspect', when: 'is_contract' },
    { from: 'route', to: 'slow', when: 'is_deadline' },
    { from: 'route', to: 'parked', when: 'is_cancel' },
    { from: 'route', to: 'read', when: 'is_read' },
    { from: 'route', to: 'done' },
    { from: 'inspect', to: 'done' },
    { from: 'slow', to: 'done' },
    { from: 'parked', to: 'done' },
    { from: 'read', to: 'done' },
  ],
  nodes: [
    { id: 'route', run: () => Promise.resolve({ outcome: 'completed' }) },
    {
      id: 'inspect',
      deadlineSeconds: 60,
      run: (_s, ctx, node) =>
        Promise.resolve({ outcome: 'completed', statePatch: { seenAttempt: sight(ctx, node) } }),
    },
    {
      id: 'slow',
      deadlineSeconds: 2,
      retry: { maxAttempts: 2, initialIntervalSeconds: 1 },
      async run(s, ctx, node) {
        if (node && node.attempt <= s.failures) {
          while (!node.cancelled) await ctx.sleep(1);
          ctx.emit('test.node_saw', { attempt: node.attempt, cancelReason: node.cancelReason });
        }
        return { outcome: 'completed', statePatch: { seenAttempt: sight(ctx, node) } };
      },
    },
    {
      id: 'parked',
      async run(_s, ctx, node) {
        try {
          await ctx.sleep(600);
        } catch (err) {
          ctx.emit('test.node_saw', { cancelled: node?.cancelled, cancelReason: node?.cancelReason });
          throw err;
        }
        return { outcome: 'completed' };
      },
    },
    {
      id: 'read',
      capabilities: [FLAKY_READ_TOOL],
      async run(s, ctx) {
        const read = await ctx.tool(FLAKY_READ_TOOL, { failures: s.failures });
        return { outcome: 'completed', statePatch: { readStatus: read.status } };
      },
    },
    {
      id: 'done',
      run: (s) => Promise.resolve({ outcome: 'completed', output: { ...s } }),
    },
  ],
};

/** Test only: the workflow-side definition that adds `graph.steps@v1` to the tests' bundle. */
export const graphStepsDefinition: AgentRunDefinition = {
  profiles: [createGraphProfile(graph)],
  policies: [],
};
