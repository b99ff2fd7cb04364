import { describe, expect, it } from 'vitest';
import { NAIVE_QUERIES, SubstringIndex } from '../../../../src/workflows/guardrails/substring-index.js';

/** A small deterministic generator, so a failure names its seed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('SubstringIndex answers exactly texts.some((t) => t.includes(phrase))', () => {
  it('on 300 random text sets, past the naive lookups (the suffix automaton)', () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const r = random(seed);
      const alphabet = ['a', 'b', 'c', '明', '天', '1', '2'];
      const word = (n: number) =>
        Array.from({ length: n }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');
      const texts = Array.from({ length: 1 + Math.floor(r() * 5) }, () => word(Math.floor(r() * 40)));
      const index = new SubstringIndex(texts);
      for (let q = 0; q < NAIVE_QUERIES + 40; q += 1) {
        const phrase = word(1 + Math.floor(r() * 6));
        expect(index.has(phrase), `seed ${seed}, phrase ${phrase}`).toBe(
          texts.some((t) => t.includes(phrase)),
        );
      }
      // A phrase spanning two texts is not in any one of them.
      if (texts.length > 1 && texts[0] && texts[1]) {
        const across = texts[0].slice(-2) + texts[1].slice(0, 2);
        expect(index.has(across)).toBe(texts.some((t) => t.includes(across)));
      }
    }
  });

  it('answers with no texts at all', () => {
    const index = new SubstringIndex([]);
    for (let q = 0; q < NAIVE_QUERIES + 3; q += 1) expect(index.has(`x${q}`)).toBe(false);
  });
});
