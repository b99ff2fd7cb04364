import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jwtSpans } from '../../../../src/workflows/guardrails/jwt-spans.js';

/** The JWT rule as it was: a lookbehind V8 reads backwards from every start (O(n²) on `eyJeyJ…`). */
const LOOKBEHIND_RULE =
  /(?<!\beyJ[A-Za-z0-9_-]*?)\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g;

const byLookbehind = (text: string): { start: number; end: number }[] =>
  [...text.matchAll(LOOKBEHIND_RULE)].map((m) => ({ start: m.index, end: m.index + m[0].length }));

/**
 * Pieces that make starts (`eyJ` at and off a word boundary), whole segments, near-misses and the
 * characters that end a segment; about one text in twenty holds a token.
 */
const PIECES = [
  'eyJ',
  'eyJ-',
  'eyJabcdefgh',
  'eyJabcdefgh',
  '.eyJabcdefgh',
  '.eyJabcdefgh',
  '.abcdefgh',
  '.abcdefgh',
  'abcdefgh',
  'a',
  '9',
  '-',
  '_',
  '.',
  ' ',
  'é',
  '\n',
];
const pieceText = fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }).map((p) => p.join(''));

describe('jwtSpans', () => {
  it('finds exactly what the lookbehind rule found', () => {
    fc.assert(
      fc.property(pieceText, (text) => {
        expect([...jwtSpans(text)]).toEqual(byLookbehind(text));
      }),
      { numRuns: 5_000 },
    );
  });

  it('finds exactly what the lookbehind rule found in tokens and texts around them', () => {
    const seg = 'abcdefghij';
    const token = `eyJ${seg}.eyJ${seg}.${seg}`;
    for (const text of [
      token,
      `x ${token} y ${token}`,
      `eyJ-${token}`,
      `eyJ${token}`,
      `-${token}.${token}`,
      `${token}eyJ${seg}.eyJ${seg}.${seg}`,
      `eyJ-eyJ-eyJ${seg}.eyJ${seg}.${seg}`,
      `Bearer ${token}`,
      'eyJeyJeyJ'.repeat(20),
    ])
      expect([...jwtSpans(text)], text).toEqual(byLookbehind(text));
  });
});
