import type { ToolDefinition } from '../../../../src/contract/tool.js';
import type { PolicyRequest } from '../../../../src/workflows/policy/policy.js';

export const NOW = '2026-07-15T12:00:00.000Z';

const closed = { type: 'object', properties: {}, additionalProperties: false };

export function tool(name: string, effect: 'read' | 'write', version = 'v1'): ToolDefinition {
  return { name, version, description: `${name} tool`, parameters: closed, effect };
}

export function dispatch(
  name: string,
  effect: 'read' | 'write',
  args: Record<string, unknown>,
  facts?: PolicyRequest['facts'],
): PolicyRequest {
  const req: PolicyRequest = { stage: 'dispatch', tool: { name, version: 'v1', effect }, args, now: NOW };
  if (facts !== undefined) req.facts = facts;
  return req;
}

export function presentation(
  name: string,
  effect: 'read' | 'write',
  facts?: PolicyRequest['facts'],
): PolicyRequest {
  const req: PolicyRequest = { stage: 'presentation', tool: { name, version: 'v1', effect }, now: NOW };
  if (facts !== undefined) req.facts = facts;
  return req;
}

/** Run `fn` and return what it threw (undefined when it did not throw). */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}
