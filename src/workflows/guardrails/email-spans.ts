import type { Span } from './finding.js';

/** The domain after the `@`: labels joined by dots, ending in a dot and two or more letters. */
const DOMAIN = /[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/y;

/** `A-Z a-z 0-9 . _ % + -`: the characters of an address's local part. */
function isLocalChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2e ||
    c === 0x5f ||
    c === 0x25 ||
    c === 0x2b ||
    c === 0x2d
  );
}

/**
 * The e-mail addresses in `text`, in order: exactly the matches of
 * `/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g`, found in linear time. That
 * pattern, searched from every position, reads to the end of a long run of local-part characters
 * (`aaaa…`, `1111…`, `a.a.a…`) from each of them: O(n²). Here every `@` is found with `indexOf`,
 * its local part read backwards (never past the previous address) and its domain matched once,
 * anchored after it; each character is read a bounded number of times. Never throws.
 */
export function* emailSpans(text: string): Generator<Span> {
  let from = 0;
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > from && isLocalChar(text.charCodeAt(start - 1))) start -= 1;
    if (start === at) continue;
    DOMAIN.lastIndex = at + 1;
    const domain = DOMAIN.exec(text);
    if (domain === null) continue;
    from = at + 1 + domain[0].length;
    yield { start, end: from };
  }
}
