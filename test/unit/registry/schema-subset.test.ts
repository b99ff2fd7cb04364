import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../src/contract/errors.js';
import type { JsonSchema } from '../../../src/contract/tool.js';
import { SCHEMA_LIMITS, SUPPORTED_SCHEMA_KEYWORDS, checkToolSchema } from '../../../src/registry/index.js';
import { EVERY_KEYWORD, closed } from './helpers.js';

function schemaError(schema: unknown): { code: string; message: string; details: Record<string, unknown> } {
  try {
    checkToolSchema('t.x@v1', schema);
  } catch (err) {
    if (isHarnessError(err)) return { code: err.code, message: err.message, details: { ...err.details } };
    throw err;
  }
  throw new Error('schema was accepted');
}

describe('supported JSON Schema subset', () => {
  it('accepts a schema using every supported keyword', () => {
    expect(() => checkToolSchema('t.x@v1', EVERY_KEYWORD)).not.toThrow();
    const used = new Set<string>();
    const collect = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return;
      for (const [k, v] of Object.entries(node)) {
        used.add(k);
        if (k === 'properties') Object.values(v as object).forEach(collect);
        if (k === 'items') collect(v);
      }
    };
    collect(EVERY_KEYWORD);
    expect([...used].sort()).toEqual([...SUPPORTED_SCHEMA_KEYWORDS].sort());
  });

  it.each([
    ['$ref', { $ref: '#/definitions/x' }],
    ['oneOf', { oneOf: [{ type: 'string' }] }],
    ['anyOf', { anyOf: [{ type: 'string' }] }],
    ['allOf', { allOf: [{ type: 'string' }] }],
    ['not', { not: { type: 'string' } }],
    ['patternProperties', { patternProperties: {} }],
    ['if', { if: {} }],
    ['$schema', { $schema: 'http://json-schema.org/draft-07/schema#' }],
    ['definitions', { definitions: {} }],
    ['dependentRequired', { dependentRequired: {} }],
  ])('rejects %s at the root with its keyword and pointer', (keyword, extra) => {
    const err = schemaError({ ...closed(), ...extra });
    expect(err.code).toBe('registry.schema_unsupported');
    expect(err.details.keyword).toBe(keyword);
    expect(err.details.pointer).toBe(`/${keyword}`);
    expect(err.message).toContain(`'${keyword}'`);
    expect(err.message).toContain(`/${keyword}`);
  });

  it('names the pointer of an unsupported keyword deep inside the schema', () => {
    const err = schemaError(
      closed({ a: closed({ b: { type: 'array', items: { type: 'string', anyOf: [] } } }) }),
    );
    expect(err.code).toBe('registry.schema_unsupported');
    expect(err.details).toMatchObject({
      keyword: 'anyOf',
      pointer: '/properties/a/properties/b/items/anyOf',
    });
  });

  it('escapes property names in pointers (RFC 6901)', () => {
    const err = schemaError(closed({ 'a/b~c': { type: 'string', oneOf: [] } }));
    expect(err.details.pointer).toBe('/properties/a~1b~0c/oneOf');
  });

  it.each([
    ['a string keyword on a number', { type: 'number', minLength: 1 }, 'minLength'],
    ['a number keyword on a string', { type: 'string', minimum: 1 }, 'minimum'],
    ['an array keyword on an object', { ...closed(), items: { type: 'string' } }, 'items'],
    ['type unions', { type: ['string', 'null'] }, 'type'],
    ['tuple items', { type: 'array', items: [{ type: 'string' }] }, 'items'],
    ['an unknown format', { type: 'string', format: 'hostname' }, 'format'],
  ])('rejects %s (registry.schema_unsupported)', (_label, node, keyword) => {
    const err = schemaError(closed({ p: node }));
    expect(err.code).toBe('registry.schema_unsupported');
    expect(err.details.keyword).toBe(keyword);
  });

  it.each([
    ['negative minLength', { type: 'string', minLength: -1 }, 'minLength'],
    ['fractional maxItems', { type: 'array', items: { type: 'string' }, maxItems: 1.5 }, 'maxItems'],
    ['min above max', { type: 'string', minLength: 5, maxLength: 2 }, 'minLength'],
    ['an invalid pattern', { type: 'string', pattern: '(' }, 'pattern'],
    ['multipleOf 0', { type: 'number', multipleOf: 0 }, 'multipleOf'],
    ['minimum above maximum', { type: 'integer', minimum: 5, maximum: 1 }, 'minimum'],
    ['an empty enum', { enum: [] }, 'enum'],
    [
      'duplicate enum values',
      {
        enum: [
          { a: 1, b: 2 },
          { b: 2, a: 1 },
        ],
      },
      'enum',
    ],
    ['a missing type', { description: 'x' }, 'type'],
    ['an unknown type', { type: 'date' }, 'type'],
    ['a non-string description', { type: 'string', description: 1 }, 'description'],
  ])('rejects %s (registry.schema_invalid)', (_label, node, keyword) => {
    const err = schemaError(closed({ p: node }));
    expect(err.code).toBe('registry.schema_invalid');
    expect(err.details.keyword).toBe(keyword);
    expect(err.details.pointer).toBe(`/properties/p/${keyword}`);
  });

  it('rejects required names that are not declared properties', () => {
    const err = schemaError(closed({ a: { type: 'string' } }, ['a', 'b']));
    expect(err.code).toBe('registry.schema_invalid');
    expect(err.message).toContain("'b'");
  });

  it('rejects values that are not JSON (registry.schema_invalid)', () => {
    const cyclic: Record<string, unknown> = { ...closed() };
    cyclic.default = cyclic;
    expect(schemaError(cyclic).code).toBe('registry.schema_invalid');
    expect(schemaError({ ...closed(), default: () => 1 }).code).toBe('registry.schema_invalid');
    expect(schemaError({ ...closed(), default: Number.NaN }).code).toBe('registry.schema_invalid');
  });
});

describe('schema size limits', () => {
  it('rejects more than maxBytes of canonical JSON', () => {
    const fits = closed({ s: { type: 'string', description: 'x'.repeat(SCHEMA_LIMITS.maxBytes - 200) } });
    expect(() => checkToolSchema('t.x@v1', fits)).not.toThrow();
    const err = schemaError(
      closed({ s: { type: 'string', description: 'x'.repeat(SCHEMA_LIMITS.maxBytes) } }),
    );
    expect(err.code).toBe('registry.schema_too_large');
    expect(err.details).toMatchObject({ limit: 'bytes', max: 16 * 1024 });
  });

  it('counts bytes as UTF-8, not characters', () => {
    const chars = Math.floor(SCHEMA_LIMITS.maxBytes / 3);
    const err = schemaError(closed({ s: { type: 'string', description: '\u4e2d'.repeat(chars) } }));
    expect(err.details.limit).toBe('bytes');
  });

  it('rejects nesting deeper than maxDepth', () => {
    const nest = (levels: number): JsonSchema => (levels === 1 ? closed() : closed({ c: nest(levels - 1) }));
    expect(() => checkToolSchema('t.x@v1', nest(SCHEMA_LIMITS.maxDepth))).not.toThrow();
    const err = schemaError(nest(SCHEMA_LIMITS.maxDepth + 1));
    expect(err.code).toBe('registry.schema_too_large');
    expect(err.details).toMatchObject({ limit: 'depth', max: 8 });
  });

  it('rejects more than maxProperties properties in total', () => {
    const props = (n: number, prefix: string): Record<string, JsonSchema> =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, { type: 'null' }]));
    expect(() =>
      checkToolSchema('t.x@v1', closed({ ...props(100, 'a'), inner: closed(props(27, 'b')) })),
    ).not.toThrow();
    const err = schemaError(closed({ ...props(100, 'a'), inner: closed(props(28, 'b')) }));
    expect(err.code).toBe('registry.schema_too_large');
    expect(err.details).toMatchObject({ limit: 'properties', actual: 129, max: 128 });
  });
});
