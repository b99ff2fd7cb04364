import type { JsonSchema, ToolDefinition, ToolExecutor } from '../../../src/contract/tool.js';

/** A closed object schema with the given properties, all optional unless listed in `required`. */
export function closed(properties: Record<string, JsonSchema> = {}, required?: string[]): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties,
    ...(required === undefined ? {} : { required }),
  };
}

/** A valid definition, with fields overridden. */
export function definition(overrides: Partial<Record<keyof ToolDefinition, unknown>> = {}): ToolDefinition {
  return {
    name: 'report.generate',
    version: 'v1',
    description: 'Generate an observed report',
    effect: 'read',
    parameters: closed({ title: { type: 'string' } }),
    ...overrides,
  } as ToolDefinition;
}

/** An executor that returns a fixed output. */
export function executor(output: Record<string, unknown> = { status: 'ready' }): ToolExecutor {
  return { execute: () => Promise.resolve({ output }) };
}

/** A schema that uses every supported keyword at least once. */
export const EVERY_KEYWORD: JsonSchema = {
  type: 'object',
  title: 'Everything',
  description: 'Uses every supported keyword',
  additionalProperties: false,
  required: ['s'],
  default: {},
  examples: [{ s: 'a' }],
  properties: {
    s: {
      type: 'string',
      minLength: 1,
      maxLength: 20,
      pattern: '^[a-z@.]+$',
      format: 'email',
      default: 'a@b.c',
    },
    n: {
      type: 'number',
      minimum: 0,
      maximum: 10,
      exclusiveMinimum: -1,
      exclusiveMaximum: 11,
      multipleOf: 0.5,
    },
    i: { type: 'integer', const: 3 },
    b: { type: 'boolean' },
    z: { type: 'null' },
    e: { enum: ['a', 1, null] },
    list: { type: 'array', items: { type: 'string' }, minItems: 0, maxItems: 3, uniqueItems: true },
    nested: closed({ deep: { type: 'string' } }),
  },
};
