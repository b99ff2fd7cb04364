import type { Span } from './finding.js';
import { IntList } from './int-list.js';
import { isSpace } from './text-chars.js';

/** True when the character at `i` ends a sentence: `。！？` or a line feed, or `.!?` before white space or the end. */
function isSentenceEnd(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c === 0x3002 || c === 0xff01 || c === 0xff1f || c === 0x0a) return true;
  if (c !== 0x2e && c !== 0x21 && c !== 0x3f) return false;
  return i + 1 >= text.length || isSpace(text.charCodeAt(i + 1));
}

/** The sentences of `text`, in order (each trimmed of leading whitespace; empty ones left out). Linear. */
export function* sentencesOf(text: string): Generator<Span> {
  let start = 0;
  for (let i = 0; i <= text.length; i += 1) {
    if (i === text.length || isSentenceEnd(text, i)) {
      const end = Math.min(i + 1, text.length);
      let s = start;
      while (s < end && isSpace(text.charCodeAt(s))) s += 1;
      if (s < end) yield { start: s, end };
      start = i + 1;
    }
  }
}

/**
 * A lookup of the sentence that holds an index of `text`: from after the last sentence end before
 * the index (trimmed of leading whitespace, but never past the index) to the first sentence end at or
 * after it, inclusive. Built in linear time; each lookup costs O(log n). Never throws.
 */
export function sentenceLocator(text: string): (index: number) => Span {
  const ends = new IntList();
  for (let i = 0; i < text.length; i += 1) if (isSentenceEnd(text, i)) ends.push(i);
  // the first non-space position of each piece (after sentence end k-1, up to sentence end k)
  const trimmed = new IntList(ends.length + 1);
  for (let k = 0; k <= ends.length; k += 1) {
    const last = ends.at(k) ?? text.length;
    let s = (ends.at(k - 1) ?? -1) + 1;
    while (s < last && isSpace(text.charCodeAt(s))) s += 1;
    trimmed.push(s);
  }
  return (index) => {
    const k = ends.firstAtLeast(index);
    return { start: Math.min(trimmed.at(k) ?? index, index), end: (ends.at(k) ?? text.length - 1) + 1 };
  };
}
