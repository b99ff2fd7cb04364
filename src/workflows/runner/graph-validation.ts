import { HarnessError } from '../../contract/errors.js';
import type { GraphDefinition } from './graph-definition.js';
import { retryPolicyProblems } from './graph-node-retry.js';
import { deadlineProblems } from './graph-node-context.js';
import { isStateSchema } from './graph-state-patch.js';
import { versionedName } from '../../contract/versioned-name.js';

/**
 * Static reachability: every node reachable from `start` when the edges guarded by
 * `blockedConditions` can never be taken. Used to prove, e.g., that `create_refund` is unreachable
 * before `confirmation_granted`.
 */
export function reachableNodes(
  graph: Pick<GraphDefinition<unknown>, 'edges'>,
  start: string,
  blockedConditions: ReadonlySet<string> | readonly string[],
): Set<string> {
  const blocked = new Set(blockedConditions);
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const e of graph.edges) {
      if (e.from !== node || (e.when !== undefined && blocked.has(e.when)) || seen.has(e.to)) continue;
      seen.add(e.to);
      queue.push(e.to);
    }
  }
  return seen;
}

/** Checks a graph's shape at composition time. @throws HarnessError `graph.invalid`. */
export function validateGraph<S>(g: GraphDefinition<S>): void {
  const ids = new Set(g.nodes.map((n) => n.id));
  const problems: string[] = [];
  if (ids.size !== g.nodes.length) problems.push('duplicate node ids');
  if (!ids.has(g.start)) problems.push(`start node ${g.start} is not defined`);
  for (const e of g.edges) {
    if (!ids.has(e.from)) problems.push(`edge from unknown node ${e.from}`);
    if (!ids.has(e.to)) problems.push(`edge to unknown node ${e.to}`);
    if (e.when !== undefined && !g.conditions[e.when])
      problems.push(`edge ${e.from}->${e.to} uses unknown condition ${e.when}`);
  }
  for (const t of g.terminal) if (!ids.has(t)) problems.push(`terminal node ${t} is not defined`);
  for (const n of g.nodes) {
    problems.push(...retryPolicyProblems(n.id, n.retry));
    problems.push(...deadlineProblems(n.id, n.deadlineSeconds));
  }
  if (!isStateSchema(g.stateSchema)) problems.push('stateSchema must be a zod object schema');
  if (problems.length)
    throw new HarnessError(
      'graph.invalid',
      `graph ${versionedName(g.name, g.version)}: ${problems.join('; ')}`,
      {
        problems,
      },
    );
}
