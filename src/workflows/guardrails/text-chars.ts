/**
 * Character classes of the guardrails' hand-written scanners, by UTF-16 code unit, exactly as the
 * regular expressions they stand for read them (no `u` flag).
 */

/** `\s`: ECMAScript white space and line terminators. */
export function isSpace(c: number): boolean {
  return (
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** `\w`: `[A-Za-z0-9_]`. */
export function isWordChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;
}

/** The code unit lower-cased when it is an ASCII capital, as case-insensitive matching without `u` does. */
export function asciiLower(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
}

/** True when `text` holds `word` (lower-case ASCII) at `at`, ignoring ASCII case. */
export function hasWordAt(text: string, at: number, word: string): boolean {
  if (at < 0 || at + word.length > text.length) return false;
  for (let k = 0; k < word.length; k += 1) {
    if (asciiLower(text.charCodeAt(at + k)) !== word.charCodeAt(k)) return false;
  }
  return true;
}
