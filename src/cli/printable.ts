/**
 * Text from outside the CLI (a proof bundle's fields, a run's model output, a verifier's detail
 * quoting them) made safe to print on a person's terminal. Without it a value could carry an ANSI
 * escape sequence (colours, cursor moves, a cleared screen) or a line break, and forge what an
 * auditor reads: a `PASS` line under a failing check. Linear in the text; never throws.
 */

/**
 * Characters that control a terminal or reorder what it shows: C0 controls and DEL, C1 controls,
 * the Unicode line and paragraph separators, and the bidirectional embeddings, overrides and isolates.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, but for line feeds and tabs: a whole block of output keeps its lines. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escaped = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One field on one line: every control character, line breaks and tabs too, written as `\uXXXX`. */
export function printable(text: string): string {
  return text.replace(CONTROL, escaped);
}

/** A block of output: control characters written as `\uXXXX`, its line feeds and tabs kept. */
export function printableBlock(text: string): string {
  return text.replace(CONTROL_BUT_LAYOUT, escaped);
}
