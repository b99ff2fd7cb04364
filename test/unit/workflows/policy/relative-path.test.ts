import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  confinePath,
  normalizeRelativePath,
  normalizeRoot,
} from '../../../../src/workflows/policy/relative-path.js';
import { isHarnessError } from '../../../../src/contract/errors.js';

const ROOT_SETS: string[][] = [['.'], ['data'], ['data', 'src/lib'], ['reports/2026']];

/** Independent oracle: where the path lands under a POSIX and a Windows workspace. */
function insideByOracle(value: string, roots: string[]): boolean {
  const posix = path.posix.resolve('/ws', value);
  const win = path.win32.resolve('C:\\ws', value).toLowerCase();
  return roots.some((root) => {
    const p = root === '.' ? '/ws' : path.posix.join('/ws', root);
    const w = (root === '.' ? 'C:\\ws' : path.win32.join('C:\\ws', root)).toLowerCase();
    const inPosix = posix === p || posix.startsWith(`${p}/`);
    const inWin = win === w || win.startsWith(`${w}\\`);
    return inPosix && inWin;
  });
}

const segment = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      'a',
      'b',
      'data',
      'src',
      'lib',
      'reports',
      '2026',
      'x.txt',
      '.hidden',
      'data2',
    ),
    weight: 6,
  },
  { arbitrary: fc.constantFrom('.', '..', '', '...', '.. ', ' '), weight: 3 },
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.constantFrom(
        'a',
        'b',
        '.',
        ' ',
        '-',
        '_',
        '~',
        ':',
        '\\',
        '\u0000',
        '\u001f',
        '\uFF0E',
        '\uFF0F',
        '\u2215',
        'é',
        'e\u0301',
        '\u200b',
      ),
      maxLength: 4,
    }),
  },
);
const anyPath = fc
  .tuple(
    fc.constantFrom('', '/', './', 'data/', 'src/lib/', 'reports/2026/', 'data/../', 'C:'),
    fc.array(segment, { minLength: 1, maxLength: 7 }),
  )
  .map(([prefix, segs]) => prefix + segs.join('/'));

describe('normalizeRelativePath', () => {
  it.each([
    ['a/b/c.txt', ['a', 'b', 'c.txt']],
    ['./a//b/./c', ['a', 'b', 'c']],
    ['a/b/../c', ['a', 'c']],
    ['a/..', []],
    ['.', []],
    ['a/', ['a']],
    ['.hidden/x', ['.hidden', 'x']],
    ['报告/月度.txt', ['报告', '月度.txt']],
  ])('normalises %j', (value, segments) => {
    expect(normalizeRelativePath(value)).toEqual({ ok: true, segments });
  });

  it.each([
    ['/etc/passwd', 'policy.path_absolute'],
    ['//server/share', 'policy.path_absolute'],
    ['\\\\server\\share\\x', 'policy.path_absolute'],
    ['\\windows', 'policy.path_absolute'],
    ['C:\\Windows', 'policy.path_absolute'],
    ['c:/windows', 'policy.path_absolute'],
    ['C:relative', 'policy.path_absolute'],
    ['~/secrets', 'policy.path_absolute'],
    ['..', 'policy.path_escape'],
    ['../x', 'policy.path_escape'],
    ['a/../../x', 'policy.path_escape'],
    ['a/./../b/../..', 'policy.path_escape'],
    ['', 'policy.path_invalid'],
    ['a\u0000b', 'policy.path_invalid'],
    ['a\nb', 'policy.path_invalid'],
    ['a\u007fb', 'policy.path_invalid'],
    ['a\u0085b', 'policy.path_invalid'],
    ['a\\..\\..\\x', 'policy.path_invalid'],
    ['file:///etc/passwd', 'policy.path_invalid'],
    ['a/b:stream', 'policy.path_invalid'],
    ['e\u0301.txt', 'policy.path_invalid'],
    ['\uFF0E\uFF0E/x', 'policy.path_invalid'],
    ['a\uFF0Fb', 'policy.path_invalid'],
    ['..\u2215x', 'policy.path_invalid'],
    ['..\u2044x', 'policy.path_invalid'],
    ['\u2024\u2024/x', 'policy.path_invalid'],
    ['\uFE52\uFE52/x', 'policy.path_invalid'],
    ['a\uFF3Cb', 'policy.path_invalid'],
    ['\u3002\u3002/x', 'policy.path_invalid'],
    ['a/\u200b../x', 'policy.path_invalid'],
    ['a/\u202e/x', 'policy.path_invalid'],
    ['a/\ud800/x', 'policy.path_invalid'],
    ['.. /x', 'policy.path_invalid'],
    ['a/.../b', 'policy.path_invalid'],
    ['x'.repeat(4097), 'policy.path_invalid'],
  ])('refuses %j with %s', (value, code) => {
    expect(normalizeRelativePath(value)).toEqual({ ok: false, code });
  });

  it.each([42, null, undefined, ['a'], { path: 'a' }])('refuses the non-string %j as invalid', (value) => {
    expect(normalizeRelativePath(value)).toEqual({ ok: false, code: 'policy.path_invalid' });
  });
});

describe('confinePath', () => {
  const roots = [normalizeRoot('data'), normalizeRoot('src/lib')];

  it('accepts paths inside a root and the root itself', () => {
    expect(confinePath('data/a.txt', roots)).toEqual({ ok: true, segments: ['data', 'a.txt'] });
    expect(confinePath('src/lib', roots)).toEqual({ ok: true, segments: ['src', 'lib'] });
    expect(confinePath('src/x/../lib/y', roots)).toEqual({ ok: true, segments: ['src', 'lib', 'y'] });
  });

  it('compares segments, not string prefixes', () => {
    expect(confinePath('data2/a.txt', roots)).toEqual({ ok: false, code: 'policy.path_outside_roots' });
    expect(confinePath('src/library', roots)).toEqual({ ok: false, code: 'policy.path_outside_roots' });
    expect(confinePath('data/../secrets', roots)).toEqual({ ok: false, code: 'policy.path_outside_roots' });
  });

  it('refuses bad allowed roots at configuration time', () => {
    for (const bad of ['/abs', '../up', 'C:\\x', '']) {
      let thrown: unknown;
      try {
        normalizeRoot(bad);
      } catch (err) {
        thrown = err;
      }
      expect(isHarnessError(thrown, 'policy.config_invalid')).toBe(true);
    }
    expect(normalizeRoot('.')).toEqual([]);
    expect(normalizeRoot('./a/b/')).toEqual(['a', 'b']);
  });
});

describe('path confinement properties', () => {
  it('every accepted path lands inside an allowed root (POSIX and Windows oracles)', () => {
    fc.assert(
      fc.property(anyPath, fc.constantFrom(...ROOT_SETS), (value, rootSet) => {
        const check = confinePath(value, rootSet.map(normalizeRoot));
        if (check.ok) expect(insideByOracle(value, rootSet)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('every path the oracle places outside the roots is refused', () => {
    fc.assert(
      fc.property(anyPath, fc.constantFrom(...ROOT_SETS), (value, rootSet) => {
        if (!insideByOracle(value, rootSet))
          expect(confinePath(value, rootSet.map(normalizeRoot)).ok).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });

  it('generated `..` escapes are always refused with policy.path_escape', () => {
    const name = fc.constantFrom('a', 'data', 'src', 'x.txt', '.');
    fc.assert(
      fc.property(
        fc.array(name, { maxLength: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(name, { maxLength: 3 }),
        (down, extra, tail) => {
          const depth = down.filter((s) => s !== '.').length;
          const value = [...down, ...Array<string>(depth + extra).fill('..'), ...tail].join('/');
          expect(confinePath(value, [normalizeRoot('.')])).toEqual({ ok: false, code: 'policy.path_escape' });
        },
      ),
    );
  });

  it('generated absolute paths are always refused with policy.path_absolute', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('/', '//', '\\', '\\\\', 'C:', 'c:/', 'Z:\\', '~', '~/'),
        fc.stringMatching(/^[a-z./]{0,12}$/),
        (prefix, rest) => {
          expect(confinePath(prefix + rest, [normalizeRoot('.')])).toEqual({
            ok: false,
            code: 'policy.path_absolute',
          });
        },
      ),
    );
  });

  it('a look-alike, control or non-NFC character anywhere makes a path invalid', () => {
    const bad = fc.constantFrom(
      '\u0000',
      '\u001b',
      '\u007f',
      '\uFF0E',
      '\uFF0F',
      '\u2215',
      '\u2044',
      '\uFF3C',
      '\u2024',
      '\uFE52',
      '\u3002',
      '\u200d',
      '\u2066',
      'e\u0301',
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,5}(\/[a-z]{1,5}){0,3}$/), bad, fc.nat(), (value, ch, at) => {
        const i = at % (value.length + 1);
        const tampered = value.slice(0, i) + ch + value.slice(i);
        expect(confinePath(tampered, [normalizeRoot('.')])).toEqual({
          ok: false,
          code: 'policy.path_invalid',
        });
      }),
    );
  });
});
