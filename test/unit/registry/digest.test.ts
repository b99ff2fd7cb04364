import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../src/contract/errors.js';
import { canonicalJson, sha256Digest } from '../../../src/activities/digest.js';

const VALUE = { b: [1, 'two', { y: null, x: true }], a: { é: -0, z: 1.5e-7 }, c: 'line\n"quoted"' };

describe('canonicalJson', () => {
  it('sorts keys at every level and writes no whitespace', () => {
    expect(canonicalJson(VALUE)).toBe(
      '{"a":{"z":1.5e-7,"é":0},"b":[1,"two",{"x":true,"y":null}],"c":"line\\n\\"quoted\\""}',
    );
  });

  it('drops undefined object properties like JSON.stringify', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it.each([
    ['a function', { f: () => 1 }, '/f'],
    ['NaN', { n: Number.NaN }, '/n'],
    ['Infinity', [Infinity], '/0'],
    ['a bigint', { b: 1n }, '/b'],
    ['undefined in an array', [1, undefined], '/1'],
    ['a hole in an array', new Array<number>(2), '/0'],
    ['a Date', { d: new Date(0) }, '/d'],
    ['a Map', { m: new Map() }, '/m'],
  ])('rejects %s with canonical_json.invalid_value and its pointer', (_label, value, pointer) => {
    try {
      canonicalJson(value);
      expect.unreachable();
    } catch (err) {
      expect(isHarnessError(err, 'canonical_json.invalid_value')).toBe(true);
      expect((err as { details: { pointer: string } }).details.pointer).toBe(pointer);
    }
  });

  it('encodes any JSON value as a naive sorted-key encoder does', () => {
    const reference = (v: unknown): string =>
      Array.isArray(v)
        ? `[${v.map(reference).join(',')}]`
        : v !== null && typeof v === 'object'
          ? `{${Object.keys(v)
              .sort()
              .map((k) => `${JSON.stringify(k)}:${reference((v as Record<string, unknown>)[k])}`)
              .join(',')}}`
          : JSON.stringify(v);
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 500 },
    );
  });

  it('encodes nesting deeper than the fast path and still finds a deep cycle and its pointer', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 600; i++) deep = i % 2 === 0 ? [deep] : { k: deep };
    expect(canonicalJson(deep)).toBe(JSON.stringify(deep));
    const root: Record<string, unknown> = {};
    let at = root;
    for (let i = 0; i < 300; i++) {
      const next: Record<string, unknown> = {};
      at.n = next;
      at = next;
    }
    at.back = root;
    expect(() => canonicalJson(root)).toThrow(/cycle/);
    try {
      canonicalJson({ ok: deep, bad: [1, { x: Number.NaN }] });
      expect.unreachable();
    } catch (err) {
      expect((err as { details: { pointer: string } }).details.pointer).toBe('/bad/1/x');
    }
  });

  it('rejects cycles but accepts shared (non-cyclic) references', () => {
    const shared = { s: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"s":1},"b":{"s":1}}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = { back: cyclic };
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
    try {
      canonicalJson({ list: [cyclic] });
      expect.unreachable();
    } catch (err) {
      expect((err as { details: { pointer: string } }).details.pointer).toBe('/list/0/self/back');
    }
  });
});

describe('sha256Digest', () => {
  it('is sha256: plus the hex SHA-256 of the canonical JSON', () => {
    const expected = createHash('sha256').update(canonicalJson(VALUE), 'utf8').digest('hex');
    expect(sha256Digest(VALUE)).toBe(`sha256:${expected}`);
    expect(sha256Digest({})).toBe('sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });

  it('does not depend on key order', () => {
    const reordered = { c: VALUE.c, a: { z: 1.5e-7, é: 0 }, b: [1, 'two', { x: true, y: null }] };
    expect(sha256Digest(reordered)).toBe(sha256Digest(VALUE));
    expect(sha256Digest({ ...VALUE, c: 'other' })).not.toBe(sha256Digest(VALUE));
    expect(sha256Digest([1, 2])).not.toBe(sha256Digest([2, 1]));
  });

  it('is the same in another process', () => {
    const digestModule = fileURLToPath(new URL('../../../src/activities/digest.ts', import.meta.url));
    const script = `import { sha256Digest } from ${JSON.stringify(digestModule)};
      const value = JSON.parse(process.argv[1]);
      process.stdout.write(sha256Digest(value));`;
    const reordered = JSON.stringify({ c: VALUE.c, b: VALUE.b, a: { z: 1.5e-7, é: 0 } });
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script, reordered],
      {
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    expect(out).toBe(sha256Digest(VALUE));
  });
});
