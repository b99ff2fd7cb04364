import type { GraphNode } from './graph-definition.js';
import type { RunContext } from './run-context.js';

/**
 * Wrap a RunContext so a node can only call its own capabilities: a call of any other tool records
 * `route.capability_excluded` and resolves with a rejection the node reads (nothing is dispatched).
 * A node without capabilities gets `ctx` itself. Failure semantics: never throws; the wrapped
 * `tool` fails as `RunContext.tool` does.
 */
export function scopedContext(ctx: RunContext, node: GraphNode<unknown>): RunContext {
  if (!node.capabilities) return ctx;
  const allowed = node.capabilities;
  return Object.create(ctx, {
    tool: {
      value: async (name: string, args: unknown, options?: Parameters<RunContext['tool']>[2]) => {
        if (!allowed.includes(name)) {
          ctx.emit('route.capability_excluded', {
            node: node.id,
            tool: name,
            reasonCode: 'route.capability_excluded',
          });
          return {
            toolCallId: `${ctx.runId}:-1`,
            seq: -1,
            toolName: name,
            toolVersion: options?.version ?? '',
            status: 'rejected' as const,
            artifactIds: [],
            errorCode: 'route.capability_excluded',
            errorMessage: `${name} is not a capability of node ${node.id}`,
            startedAt: '',
            finishedAt: '',
          };
        }
        return ctx.tool(name, args, options);
      },
    },
  }) as RunContext;
}
