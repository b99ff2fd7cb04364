import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../src/contract/errors.js';
import { MAX_FAST_TIMEOUT_MS, type ToolDefinition } from '../../../src/contract/tool.js';
import { definitionDigest, ToolRegistry } from '../../../src/registry/index.js';
import { definition, executor } from './helpers.js';

function refusal(def: ToolDefinition): { code: string; message: string } {
  try {
    new ToolRegistry().register(def, executor());
  } catch (err) {
    if (isHarnessError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('register did not throw');
}

/** `ToolDefinition.fast` (docs/extending.md, docs/runner.md "Fast path"): reads only, a bounded timeout. */
describe('fast reads at registration', () => {
  it('a read may declare itself fast; the flag is part of what a run pins', () => {
    const registry = new ToolRegistry();
    const plain = definition();
    const fast = definition({ version: 'v2', fast: { timeoutMs: 2000 } });
    registry.register(plain, executor());
    registry.register(fast, executor());
    const stored = registry.get('report.generate', 'v2').definition;
    expect(stored.fast).toEqual({ timeoutMs: 2000 });
    expect(Object.isFrozen(stored.fast)).toBe(true);
    expect(definitionDigest(stored)).not.toBe(definitionDigest({ ...stored, fast: { timeoutMs: 3000 } }));
    expect(registry.get('report.generate', 'v1').definition).not.toHaveProperty('fast');
  });

  it('a write declared fast is refused with a clear error, and nothing is registered', () => {
    const registry = new ToolRegistry();
    const write = definition({ effect: 'write', fast: { timeoutMs: 1000 } });
    expect(() => registry.register(write, executor())).toThrow(/fast is for read tools only/);
    expect(registry.has('report.generate', 'v1')).toBe(false);
    expect(refusal(write)).toEqual({
      code: 'registry.invalid_definition',
      message: expect.stringContaining('report.generate@v1: fast is for read tools only') as string,
    });
  });

  it.each([
    ['zero', { timeoutMs: 0 }],
    ['over the bound', { timeoutMs: MAX_FAST_TIMEOUT_MS + 1 }],
    ['a fraction', { timeoutMs: 10.5 }],
    ['a string', { timeoutMs: '1000' }],
    ['another field', { timeoutMs: 1000, retries: 3 }],
    ['no timeout', {}],
    ['not an object', true],
  ])('a fast read with %s is refused (registry.invalid_definition)', (_label, fast) => {
    expect(refusal(definition({ fast })).code).toBe('registry.invalid_definition');
  });

  it('the bound itself is accepted', () => {
    const registry = new ToolRegistry();
    registry.register(definition({ fast: { timeoutMs: MAX_FAST_TIMEOUT_MS } }), executor());
    expect(registry.get('report.generate', 'v1').definition.fast?.timeoutMs).toBe(MAX_FAST_TIMEOUT_MS);
  });
});
