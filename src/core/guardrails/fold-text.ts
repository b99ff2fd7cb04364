import type { Span } from './finding.js';

/**
 * A folded view of a string for marker matching: each code point NFKC-normalised and lower-cased
 * (so full-width `ｉｇｎｏｒｅ` reads `ignore`), invisible format characters (zero-width space,
 * joiners, BOM, bidi controls) dropped, so `ig\u200Bnore` reads `ignore`. `origin` maps every
 * folded UTF-16 index back to the original span it came from.
 */
export interface FoldedText {
  readonly text: string;
  /** For each UTF-16 unit of `text`: the original span of the code point it came from. */
  readonly origin: readonly Span[];
}

const FORMAT_CHAR = /^\p{Cf}$/u;

/** Build the folded view of `s`. Never throws (lone surrogates are kept as they are). */
export function foldText(s: string): FoldedText {
  let text = '';
  const origin: Span[] = [];
  let i = 0;
  for (const cp of s) {
    const span = { start: i, end: i + cp.length };
    i += cp.length;
    if (FORMAT_CHAR.test(cp)) continue;
    const folded = cp.normalize('NFKC').toLowerCase();
    text += folded;
    for (let k = 0; k < folded.length; k += 1) origin.push(span);
  }
  return { text, origin };
}

/** The original span of folded range `[start, end)`. */
export function originalSpan(f: FoldedText, start: number, end: number): Span {
  const first = f.origin[start];
  const last = f.origin[Math.max(start, end - 1)];
  return { start: first?.start ?? 0, end: last?.end ?? first?.end ?? 0 };
}
