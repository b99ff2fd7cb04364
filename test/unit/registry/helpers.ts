import type { JsonSchema, ToolDefinition, ToolExecutor } from '../../../src/domain/tool.js';

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
