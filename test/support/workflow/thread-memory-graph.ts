import { z } from 'zod';
import {
  createGraphProfile,
  type AgentRunDefinition,
  type GraphDefinition,
} from '../../../src/workflows/index.js';

/** Test only: the state of `memory.thread@v1`. */
const MemoryStateSchema = z.strictObject({
  policyId: z.string(),
  recalled: z.array(z.string()),
  outcomes: z.record(z.string(), z.string()),
});
type MemoryState = z.output<typeof MemoryStateSchema>;

/**
 * Test only: `memory.thread@v1`, thread memory on the real server (docs/context.md, "Memory").
 * `recall` reads what earlier runs of the thread remembered; `learn` reads the refund policy clause
 * `task.policyId` with `policy.search.refund`, records its id and its text as facts from the observed
 * clause, and tries to remember both, and a fact it never recorded; `done` answers with what it recalled
 * and each attempt's outcome (`written` or the refusal code).
 */
const graph: GraphDefinition<MemoryState> = {
  name: 'memory.thread',
  version: 'v1',
  start: 'recall',
  terminal: ['done'],
  tools: ['policy.search.refund'],
  policies: { default: 'allow_all@v1' },
  completion: { evaluator: { name: 'solution_delivered', version: 'v1' } },
  stateSchema: MemoryStateSchema,
  conditions: {},
  initialState: (task) => ({
    policyId: typeof task.policyId === 'string' ? task.policyId : 'R001',
    recalled: [],
    outcomes: {},
  }),
  edges: [
    { from: 'recall', to: 'learn' },
    { from: 'learn', to: 'done' },
  ],
  nodes: [
    {
      id: 'recall',
      async run(_s, ctx) {
        const entries = await ctx.recall();
        return {
          outcome: 'completed',
          statePatch: { recalled: entries.map((e) => `${e.name}=${String(e.value)}@${e.provenance.runId}`) },
        };
      },
    },
    {
      id: 'learn',
      capabilities: ['policy.search.refund'],
      async run(s, ctx) {
        const o = await ctx.tool('policy.search.refund', {});
        const policies = (o.output?.policies ?? []) as { id: string; text: string }[];
        const index = policies.findIndex((p) => p.id === s.policyId);
        const clause = policies[index];
        const evidence = o.artifactIds[index];
        const outcomes: Record<string, string> = {};
        if (clause && evidence) {
          ctx.recordFact('refund.policy_id', clause.id, evidence);
          ctx.recordFact('refund.policy_text', clause.text, evidence);
        }
        for (const name of ['refund.policy_id', 'refund.policy_text', 'order.owner_verified']) {
          const r = await ctx.remember(name, { ttlSeconds: 3600 });
          outcomes[name] = r.written ? 'written' : r.code;
        }
        return { outcome: 'completed', statePatch: { outcomes } };
      },
    },
    {
      id: 'done',
      run: (s) =>
        Promise.resolve({ outcome: 'completed', output: { recalled: s.recalled, outcomes: s.outcomes } }),
    },
  ],
};

/** Test only: adds `memory.thread@v1` to the tests' bundle. */
export const threadMemoryDefinition: AgentRunDefinition = {
  profiles: [createGraphProfile(graph)],
  policies: [],
};
