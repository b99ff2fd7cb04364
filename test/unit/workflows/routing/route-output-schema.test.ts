import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../../src/contract/tool.js';
import { ArgumentValidator } from '../../../../src/registry/argument-validator.js';
import { checkToolSchema } from '../../../../src/registry/schema-subset.js';
import {
  readRouteProposal,
  routeOutputSchema,
} from '../../../../src/workflows/routing/route-output-schema.js';

const schema = routeOutputSchema(['refund', 'order_status', 'escalate', 'refund']);

/** The schema as a tool's parameters, so the registry's own validator judges answers against it. */
const asDefinition: ToolDefinition = {
  name: 'route.answer',
  version: 'v1',
  description: 'the route answer',
  effect: 'read',
  parameters: schema,
};

describe('routeOutputSchema', () => {
  it('is a closed object whose enum is exactly the choices, sorted and unique', () => {
    expect(schema).toEqual({
      type: 'object',
      properties: {
        route: {
          type: 'string',
          description: 'The capability domain that handles the request.',
          enum: ['escalate', 'order_status', 'refund'],
        },
      },
      required: ['route'],
      additionalProperties: false,
    });
    expect(() => checkToolSchema('route.answer', schema)).not.toThrow();
  });

  it('the registry validator accepts a choice and refuses anything else', () => {
    const v = new ArgumentValidator();
    expect(v.validate(asDefinition, { route: 'refund' }).ok).toBe(true);
    expect(v.validate(asDefinition, { route: 'identify' }).ok).toBe(false);
    expect(v.validate(asDefinition, { route: 'refund', why: 'x' }).ok).toBe(false);
  });
});

describe('readRouteProposal', () => {
  it('reads a route of the right shape, whatever its value, and nothing else', () => {
    expect(readRouteProposal({ route: 'identify' })).toEqual({ ok: true, route: 'identify' });
    expect(readRouteProposal(JSON.parse('{"route":"refund"}'))).toEqual({ ok: true, route: 'refund' });
    expect(readRouteProposal(Object.assign(Object.create(null) as object, { route: 'refund' }))).toEqual({
      ok: true,
      route: 'refund',
    });
    for (const bad of [
      undefined,
      null,
      'refund',
      { route: ['refund'] },
      { Route: 'refund' },
      { route: 'r', x: 1 },
    ]) {
      expect(readRouteProposal(bad)).toEqual({ ok: false });
    }
  });
});
