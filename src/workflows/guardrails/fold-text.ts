import type { Span } from './finding.js';
import { IntList } from './int-list.js';

/**
 * A folded view of a string for marker matching: each code point NFKC-normalised and lower-cased
 * (so full-width `ｉｇｎｏｒｅ` reads `ignore`), invisible format characters (zero-width space,
 * joiners, BOM, bidi controls) dropped, so `ig\u200Bnore` reads `ignore`.
 *
 * The folded text is a sequence of pieces: runs copied from the original one UTF-16 unit for one
 * (ASCII lower-cased, code points that fold to themselves), and single code points that folded to
 * something else. Only piece boundaries are stored, so mapping back costs no memory per character.
 */
export interface FoldedText {
  readonly text: string;
  /** The original string. */
  readonly source: string;
  /** Where each piece starts in `text`, ascending. */
  readonly starts: IntList;
  /** Where each piece starts in `source`. */
  readonly origins: IntList;
  /** 0 for a run; else the UTF-16 length (1 or 2) of the code point the piece was folded from. */
  readonly sizes: IntList;
}

const FORMAT_CHAR = /^\p{Cf}$/u;

/**
 * Build the folded view of `s`. Linear in the length of `s`; never throws (lone surrogates are kept
 * as they are). ASCII (which has no format characters and folds by lower-casing alone) and code
 * points that fold to themselves are copied in runs, one slice per run; only the others are
 * normalised one by one.
 */
export function foldText(s: string): FoldedText {
  // appended piece by piece (strings concatenate without copying until first read; an array of
  // one piece per character joined at the end is far slower for long texts)
  let text = '';
  const starts = new IntList();
  const origins = new IntList();
  const sizes = new IntList();
  const add = (piece: string, origin: number, size: number): void => {
    starts.push(text.length);
    origins.push(origin);
    sizes.push(size);
    text += piece;
  };
  // the pending run [run, i); lower-casing ASCII is context-free, and the others in it fold to themselves
  let run = 0;
  let i = 0;
  while (i < s.length) {
    if (s.charCodeAt(i) < 0x80) {
      i += 1;
      continue;
    }
    const size = (s.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
    const cp = s.slice(i, i + size);
    const folded = FORMAT_CHAR.test(cp) ? '' : cp.normalize('NFKC').toLowerCase();
    if (folded !== cp) {
      if (run < i) add(s.slice(run, i).toLowerCase(), run, 0);
      if (folded.length > 0) add(folded, i, size);
      run = i + size;
    }
    i += size;
  }
  if (run < s.length) add(s.slice(run).toLowerCase(), run, 0);
  return { text, source: s, starts, origins, sizes };
}

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** The original span of the code point folded unit `index` came from; undefined outside the text. */
function unitOrigin(f: FoldedText, index: number): Span | undefined {
  if (index < 0 || index >= f.text.length) return undefined;
  const piece = f.starts.firstAtLeast(index + 1) - 1;
  const origin = f.origins.at(piece) ?? 0;
  const size = f.sizes.at(piece) ?? 0;
  if (size > 0) return { start: origin, end: origin + size };
  const at = origin + index - (f.starts.at(piece) ?? 0);
  const c = f.source.charCodeAt(at);
  if (isHigh(c) && isLow(f.source.charCodeAt(at + 1))) return { start: at, end: at + 2 };
  if (isLow(c) && isHigh(f.source.charCodeAt(at - 1))) return { start: at - 1, end: at + 1 };
  return { start: at, end: at + 1 };
}

/** The original span of folded range `[start, end)`. */
export function originalSpan(f: FoldedText, start: number, end: number): Span {
  const first = unitOrigin(f, start);
  const last = unitOrigin(f, Math.max(start, end - 1));
  return { start: first?.start ?? 0, end: last?.end ?? first?.end ?? 0 };
}
