import type { Span } from './finding.js';

/** `\beyJ`: where a token may start (a word boundary, then the base64url of `{"`). */
const TOKEN_START = /\beyJ/g;
/** The token itself, read once from a start: header, payload and signature, each 8 or more characters. */
const TOKEN = /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/y;

/** `[A-Za-z0-9_-]`: the characters of one base64url segment. */
function isSegmentChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x5f ||
    c === 0x2d
  );
}

/**
 * The JSON Web Tokens in `text`, in order: exactly the matches of
 * `/(?<!\beyJ[A-Za-z0-9_-]*?)\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g`,
 * found in linear time. That lookbehind skips a start inside a segment an earlier `eyJ` began (it
 * would reach the same end with a shorter first segment, so it matches only if the earlier one did),
 * but V8 reads it backwards from every start to the beginning of the run: `eyJeyJeyJ…` cost O(n²)
 * (64 KiB took 1.7 s). Here the same rule is kept in code: a start is skipped when the previous
 * start's characters up to it are all segment characters, which one forward pointer tells. Each
 * maximal run of segment characters then holds at most one start that is tried, and a try reads at
 * most three runs, so every character is read a bounded number of times. Never throws.
 */
export function* jwtSpans(text: string): Generator<Span> {
  /** The start before this one (tried or not), or -1. */
  let previous = -1;
  /** Every character in `[runStart, scanned)` is a segment character; `scanned` only moves forward. */
  let runStart = 0;
  let scanned = 0;
  /** Where the last token ended: a global search goes on from there. */
  let resume = 0;
  for (const m of text.matchAll(TOKEN_START)) {
    const start = m.index;
    while (scanned < start) {
      if (!isSegmentChar(text.charCodeAt(scanned))) runStart = scanned + 1;
      scanned += 1;
    }
    const skipped = previous >= 0 && previous >= runStart;
    previous = start;
    if (skipped || start < resume) continue;
    TOKEN.lastIndex = start;
    const token = TOKEN.exec(text);
    if (token === null) continue;
    resume = start + token[0].length;
    yield { start, end: resume };
  }
}
