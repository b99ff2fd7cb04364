import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../src/contract/errors.js';
import type { ToolDefinition, ToolExecutor } from '../../../src/contract/tool.js';
import { MAX_DESCRIPTION_LENGTH, REGISTRY_ERROR_CODES, ToolRegistry } from '../../../src/registry/index.js';
import { closed, definition, executor } from './helpers.js';

function registerError(
  def: unknown,
  exec: unknown = executor(),
): { code: string; message: string; details: Record<string, unknown> } {
  try {
    new ToolRegistry().register(def as ToolDefinition, exec as ToolExecutor);
  } catch (err) {
    if (isHarnessError(err)) {
      expect(REGISTRY_ERROR_CODES).toContain(err.code);
      return { code: err.code, message: err.message, details: { ...err.details } };
    }
    throw err;
  }
  throw new Error('register did not throw');
}

describe('registration rules', () => {
  it('accepts a valid definition', () => {
    const registry = new ToolRegistry();
    registry.register(definition(), executor());
    expect(registry.has('report.generate', 'v1')).toBe(true);
  });

  it.each([
    ['no dot', 'report'],
    ['uppercase', 'Report.generate'],
    ['leading digit in a segment', 'report.1generate'],
    ['empty segment', 'report..generate'],
    ['trailing dot', 'report.'],
    ['dash', 'report.gen-erate'],
    ['too long', `a.${'b'.repeat(63)}`],
    ['not a string', 42],
  ])('rejects a name with %s (registry.invalid_name)', (_label, name) => {
    expect(registerError(definition({ name })).code).toBe('registry.invalid_name');
  });

  it('accepts a name at the 64 character limit with digits and underscores', () => {
    const name = `a.${'b'.repeat(60)}_9`;
    expect(name.length).toBe(64);
    const registry = new ToolRegistry();
    registry.register(definition({ name }), executor());
    expect(registry.has(name, 'v1')).toBe(true);
  });

  it.each(['1', 'v0', 'v01', 'V1', 'v1.0', 'v', 'v-1', ''])(
    'rejects version %j (registry.invalid_version)',
    (version) => {
      expect(registerError(definition({ version })).code).toBe('registry.invalid_version');
    },
  );

  it.each(['READ', 'delete', undefined, 'readonly', ''])(
    'rejects effect %j (registry.unknown_effect)',
    (effect) => {
      expect(registerError(definition({ effect })).code).toBe('registry.unknown_effect');
    },
  );

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['not a string', 7],
    ['too long', 'x'.repeat(MAX_DESCRIPTION_LENGTH + 1)],
  ])('rejects a description that is %s (registry.invalid_description)', (_label, description) => {
    expect(registerError(definition({ description })).code).toBe('registry.invalid_description');
  });

  it('rejects extra fields, which could smuggle code into a definition (registry.invalid_definition)', () => {
    const err = registerError({ ...definition(), execute: () => 1 });
    expect(err.code).toBe('registry.invalid_definition');
    expect(err.message).toContain('execute');
    expect(registerError(null).code).toBe('registry.invalid_definition');
  });

  it('idempotentByKey: true on a write is kept and pinned by the digest; false or absent leave the digest as it was', () => {
    const plain = new ToolRegistry();
    plain.register(definition({ effect: 'write' }), executor());
    const off = new ToolRegistry();
    off.register(definition({ effect: 'write', idempotentByKey: false }), executor());
    const on = new ToolRegistry();
    on.register(definition({ effect: 'write', idempotentByKey: true }), executor());
    expect(plain.get('report.generate', 'v1').definition).not.toHaveProperty('idempotentByKey');
    expect(off.get('report.generate', 'v1').definition).not.toHaveProperty('idempotentByKey');
    expect(on.get('report.generate', 'v1').definition.idempotentByKey).toBe(true);
    expect(off.snapshot().digest).toBe(plain.snapshot().digest);
    expect(on.snapshot().digest).not.toBe(plain.snapshot().digest);
  });

  it('rejects idempotentByKey that is not a boolean, or true on a read tool (registry.invalid_definition)', () => {
    const notBoolean = registerError(definition({ effect: 'write', idempotentByKey: 'yes' }));
    expect(notBoolean.code).toBe('registry.invalid_definition');
    expect(notBoolean.message).toContain('idempotentByKey');
    const onRead = registerError(definition({ effect: 'read', idempotentByKey: true }));
    expect(onRead.code).toBe('registry.invalid_definition');
    expect(onRead.message).toContain('write tools only');
  });

  it.each([
    ['no execute', {}],
    ['execute not a function', { execute: 'run' }],
    ['reconcile not a function', { execute: () => Promise.resolve({ output: {} }), reconcile: 1 }],
    ['null', null],
  ])('rejects an executor with %s (registry.invalid_executor)', (_label, exec) => {
    expect(registerError(definition({ effect: 'write' }), exec).code).toBe('registry.invalid_executor');
  });

  it('rejects reconcile on a read tool but accepts it on a write tool', () => {
    const exec: ToolExecutor = {
      execute: () => Promise.resolve({ output: {} }),
      reconcile: () => Promise.resolve({ outcome: 'unknown' }),
    };
    expect(registerError(definition({ effect: 'read' }), exec).code).toBe('registry.invalid_executor');
    const registry = new ToolRegistry();
    registry.register(definition({ effect: 'write' }), exec);
    expect(registry.get('report.generate', 'v1').definition.effect).toBe('write');
  });

  it('rejects a root schema that is not a closed object (registry.schema_not_closed)', () => {
    expect(registerError(definition({ parameters: { type: 'object', properties: {} } })).code).toBe(
      'registry.schema_not_closed',
    );
    expect(
      registerError(definition({ parameters: { type: 'object', additionalProperties: true } })).code,
    ).toBe('registry.schema_not_closed');
    expect(registerError(definition({ parameters: { type: 'string' } })).code).toBe(
      'registry.schema_not_closed',
    );
    expect(registerError(definition({ parameters: [] })).code).toBe('registry.schema_not_closed');
  });

  it('rejects a nested open object and names its pointer (registry.schema_not_closed)', () => {
    const err = registerError(
      definition({
        parameters: closed({ filter: { type: 'object', properties: { q: { type: 'string' } } } }),
      }),
    );
    expect(err.code).toBe('registry.schema_not_closed');
    expect(err.details.pointer).toBe('/properties/filter');
  });

  it('rejects an array schema without items (registry.schema_not_closed)', () => {
    const err = registerError(definition({ parameters: closed({ tags: { type: 'array' } }) }));
    expect(err.code).toBe('registry.schema_not_closed');
    expect(err.details.pointer).toBe('/properties/tags');
  });
});
