import { Ajv } from 'ajv';
import { describe, expect, it, vi } from 'vitest';
import type { ToolDefinition } from '../../../src/contract/tool.js';
import type { ArgumentValidationResult, ToolCallRejection } from '../../../src/registry/index.js';
import {
  ArgumentValidator,
  MAX_ARGUMENT_ERROR_MESSAGE,
  MAX_ARGUMENT_ERRORS,
  ToolCallValidator,
  validateToolDefinition,
} from '../../../src/registry/index.js';
import { MAX_SHARED_VALIDATORS } from '../../../src/registry/argument-validator.js';
import { EVERY_KEYWORD, closed, definition } from './helpers.js';

const REFUND = validateToolDefinition(
  definition({
    name: 'refund.create',
    effect: 'write',
    parameters: closed(
      {
        orderId: { type: 'string', pattern: '^ord_[0-9]+$' },
        amount: { type: 'integer', minimum: 1, maximum: 5000 },
        currency: { enum: ['EUR', 'USD'] },
        reason: { type: 'string', minLength: 3, maxLength: 20 },
        at: { type: 'string', format: 'date-time' },
        lines: { type: 'array', minItems: 1, items: closed({ sku: { type: 'string' } }, ['sku']) },
      },
      ['orderId', 'amount'],
    ),
  }),
);

function rejection(result: ArgumentValidationResult): ToolCallRejection {
  if (result.ok) throw new Error('expected a rejection');
  return result.rejection;
}

describe('ArgumentValidator', () => {
  const validator = new ArgumentValidator();

  it('passes valid arguments through unchanged (no coercion, no defaults)', () => {
    const args = {
      orderId: 'ord_1',
      amount: 10,
      currency: 'EUR',
      at: '2024-02-29T10:00:00Z',
      lines: [{ sku: 'a' }],
    };
    const result = validator.validate(REFUND, args);
    expect(result).toEqual({ ok: true, args });
    expect(rejection(validator.validate(REFUND, { orderId: 'ord_1', amount: '10' })).errors).toEqual([
      { pointer: '/amount', keyword: 'type', message: 'must be integer' },
    ]);
  });

  it('locates each problem with a JSON pointer and the failing keyword', () => {
    const r = rejection(
      validator.validate(REFUND, {
        amount: 9000,
        currency: 'GBP',
        reason: 'no',
        at: '2024-13-01T00:00:00Z',
        lines: [{ sku: 'a', qty: 2 }, {}],
        surprise: true,
      }),
    );
    expect(r.code).toBe('tool.invalid_arguments');
    expect(r.tool).toBe('refund.create');
    expect(r.version).toBe('v1');
    const found = r.errors.map((e) => `${e.pointer} ${e.keyword}`).sort();
    expect(found).toEqual(
      [
        '/orderId required',
        '/surprise additionalProperties',
        '/amount maximum',
        '/currency enum',
        '/reason minLength',
        '/at format',
        '/lines/0/qty additionalProperties',
        '/lines/1/sku required',
      ].sort(),
    );
    expect(r.errors.find((e) => e.keyword === 'enum')?.message).toBe('must be one of ["EUR","USD"]');
    expect(r.errors.find((e) => e.pointer === '/orderId')?.message).toBe(
      "missing required property 'orderId'",
    );
    expect(r.message).toContain('refund.create@v1');
    expect(r.omittedErrors).toBe(0);
  });

  it('reports a pattern violation', () => {
    const r = rejection(validator.validate(REFUND, { orderId: 'order-1', amount: 1 }));
    expect(r.errors).toEqual([
      { pointer: '/orderId', keyword: 'pattern', message: 'must match pattern "^ord_[0-9]+$"' },
    ]);
  });

  it('compiles and applies a schema using every supported keyword', () => {
    const def = validateToolDefinition(definition({ parameters: EVERY_KEYWORD }));
    const good = {
      s: 'ab@example.com',
      n: 9.5,
      i: 3,
      b: true,
      z: null,
      e: 1,
      list: ['x', 'y'],
      nested: { deep: 'd' },
    };
    expect(validator.validate(def, good)).toEqual({ ok: true, args: good });
    const bad = {
      s: 'AB@example.com',
      n: 9.25,
      i: 4,
      b: 'yes',
      z: 0,
      e: 2,
      list: ['x', 'x'],
      nested: { deep: 1 },
    };
    const found = rejection(validator.validate(def, bad)).errors.map((e) => `${e.pointer} ${e.keyword}`);
    expect(found.sort()).toEqual(
      [
        '/s pattern',
        '/n multipleOf',
        '/i const',
        '/b type',
        '/z type',
        '/e enum',
        '/list uniqueItems',
        '/nested/deep type',
      ].sort(),
    );
  });

  it('rejects arguments that are not an object', () => {
    for (const args of [null, [], 'x', 3, undefined]) {
      expect(rejection(validator.validate(REFUND, args)).errors).toEqual([
        { pointer: '', keyword: 'type', message: 'arguments must be a JSON object' },
      ]);
    }
  });

  it(`bounds the rejection to ${MAX_ARGUMENT_ERRORS} errors of at most ${MAX_ARGUMENT_ERROR_MESSAGE} characters`, () => {
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, { type: 'string' }]));
    const def = validateToolDefinition(definition({ parameters: closed(many) }));
    const args = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, i]));
    const r = rejection(validator.validate(def, args));
    expect(r.errors).toHaveLength(MAX_ARGUMENT_ERRORS);
    expect(r.omittedErrors).toBe(15);
    expect(r.message.length).toBeLessThanOrEqual(MAX_ARGUMENT_ERROR_MESSAGE);

    const longEnum = Array.from({ length: 40 }, (_, i) => `value-number-${i}`);
    const enumDef = validateToolDefinition(definition({ parameters: closed({ e: { enum: longEnum } }) }));
    const message = rejection(validator.validate(enumDef, { e: 'nope' })).errors[0]?.message ?? '';
    expect(message.length).toBe(MAX_ARGUMENT_ERROR_MESSAGE);
    expect(message.endsWith('...')).toBe(true);
  });

  it.each([
    ['date', '2024-02-29', '2023-02-29'],
    ['date-time', '2024-01-01T23:59:60.5+01:00', '2024-01-01 10:00:00'],
    ['email', 'ops@example.com', 'ops@'],
    ['uri', 'https://example.com/a?b=c', 'example.com/a b'],
    ['uuid', '123e4567-e89b-12d3-a456-426614174000', '123e4567-e89b-12d3-a456'],
  ])('checks format %s', (format, good, bad) => {
    const def = validateToolDefinition(definition({ parameters: closed({ v: { type: 'string', format } }) }));
    expect(validator.validate(def, { v: good }).ok).toBe(true);
    expect(rejection(validator.validate(def, { v: bad })).errors[0]).toMatchObject({
      pointer: '/v',
      keyword: 'format',
    });
  });

  it('compiles each distinct schema once, shared by every validator', () => {
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    try {
      // Schemas no other test uses, so nothing is compiled yet.
      const params = closed({ onceOnly: { type: 'string', maxLength: 7 } });
      const a: ToolDefinition = validateToolDefinition(definition({ parameters: params }));
      const sameSchema: ToolDefinition = validateToolDefinition(
        definition({ version: 'v2', parameters: closed({ onceOnly: { maxLength: 7, type: 'string' } }) }),
      );
      const other: ToolDefinition = validateToolDefinition(
        definition({ version: 'v3', parameters: closed({ onceOnly: { type: 'integer' } }) }),
      );
      for (const v of [new ArgumentValidator(), new ArgumentValidator()]) {
        for (let i = 0; i < 5; i++) {
          expect(v.validate(a, { onceOnly: 'a' }).ok).toBe(true);
          expect(v.validate(a, { onceOnly: 'too long!' }).ok).toBe(false);
          expect(v.validate(sameSchema, { onceOnly: 1 }).ok).toBe(false);
          expect(v.validate(other, { onceOnly: 1 }).ok).toBe(true);
          expect(v.validate(other, { onceOnly: 'a' }).ok).toBe(false);
        }
      }
      // a and sameSchema have the same canonical schema (key order differs): one compile for both.
      expect(compile).toHaveBeenCalledTimes(2);
    } finally {
      compile.mockRestore();
    }
  });

  it(`starts over beyond ${MAX_SHARED_VALIDATORS} distinct schemas and still validates correctly`, () => {
    const v = new ArgumentValidator();
    const defs = Array.from({ length: MAX_SHARED_VALIDATORS + 2 }, (_, i) =>
      validateToolDefinition(
        definition({ version: `v${i + 100}`, parameters: closed({ [`overflow${i}`]: { type: 'integer' } }) }),
      ),
    );
    for (const d of defs) expect(v.validate(d, { [`overflow${defs.indexOf(d)}`]: 1 }).ok).toBe(true);
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    try {
      // The first definition's validator was dropped with the cache; a new validator compiles it again.
      const again = new ArgumentValidator();
      expect(again.validate(defs[0]!, { overflow0: 'x' }).ok).toBe(false);
      expect(again.validate(defs[0]!, { overflow0: 2 }).ok).toBe(true);
      expect(compile).toHaveBeenCalledTimes(1);
    } finally {
      compile.mockRestore();
    }
  });

  it('checks an unchecked schema against the supported subset before compiling it', () => {
    const unchecked = {
      ...definition({ version: 'v9' }),
      parameters: { type: 'object', properties: { x: { type: 'string' } } },
    } as ToolDefinition;
    expect(() => new ArgumentValidator().validate(unchecked, { x: 'a' })).toThrow(
      expect.objectContaining({ code: 'registry.schema_not_closed' }),
    );
    const badKeyword = {
      ...definition({ version: 'v10' }),
      parameters: closed({ x: { type: 'string', contentEncoding: 'base64' } }),
    } as ToolDefinition;
    expect(() => new ArgumentValidator().validate(badKeyword, { x: 'a' })).toThrow(
      expect.objectContaining({ code: 'registry.schema_unsupported' }),
    );
  });
});

describe('ToolCallValidator', () => {
  it('validates calls against a pinned set of definitions and rejects unknown tools', () => {
    const calls = new ToolCallValidator([REFUND]);
    expect(calls.validate('refund.create', 'v1', { orderId: 'ord_1', amount: 5 }).ok).toBe(true);
    const unknown = rejection(calls.validate('refund.create', 'v2', {}));
    expect(unknown).toMatchObject({ code: 'tool.unknown', tool: 'refund.create', version: 'v2' });
    expect(unknown.errors).toEqual([
      { pointer: '', keyword: 'tool', message: 'unknown tool refund.create@v2' },
    ]);
    const long = rejection(calls.validate('x'.repeat(500), 'v1', {}));
    expect(long.tool.length).toBeLessThanOrEqual(100);
    expect(long.message.length).toBeLessThanOrEqual(MAX_ARGUMENT_ERROR_MESSAGE);
  });
});
