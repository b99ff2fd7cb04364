import type { Detection } from './finding.js';
import { InputReasonCodes } from './reason-codes.js';

/** C0/C1 controls except tab, LF, CR; plus invisible format characters (zero-width, bidi overrides, BOM). */
const CONTROL = /[\p{Cc}\p{Cf}]/gu;
const ALLOWED_CONTROLS = new Set(['\t', '\n', '\r']);
/** Characters `isNfc` normalises at once, about. */
const NFC_PIECE = 4096;
const FROM_U0300 = /[\u0300-\uffff]/;

/**
 * Whether `text` is in Unicode NFC, without a normalised copy of all of it: normalised in pieces of
 * about {@link NFC_PIECE} characters, each cut before a character below U+0300. No such character
 * decomposes, reorders or composes with what comes before it (NFC quick check yes, combining class
 * 0, never the second of a composition), so the pieces normalise independently: the text is NFC
 * exactly when every piece is. Text without a character at U+0300 or above is NFC as it is.
 */
function isNfc(text: string): boolean {
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + NFC_PIECE, text.length);
    while (end < text.length && text.charCodeAt(end) >= 0x300) end += 1;
    const piece = text.slice(start, end);
    if (FROM_U0300.test(piece) && piece.normalize('NFC') !== piece) return false;
    start = end;
  }
  return true;
}

/**
 * Find encoding problems in `text`: lone UTF-16 surrogates (each one), control and invisible format
 * characters (each one), and text that is not in Unicode NFC (one detection over the whole string;
 * checked only when there is no lone surrogate). Linear in the length of `text`; never throws.
 */
export function* detectEncoding(text: string): Generator<Detection> {
  let lone = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i += 1;
        continue;
      }
    } else if (!(c >= 0xdc00 && c <= 0xdfff)) continue;
    lone = true;
    yield {
      code: InputReasonCodes.encodingLoneSurrogate,
      ruleId: 'encoding.lone_surrogate',
      span: { start: i, end: i + 1 },
    };
  }
  if (lone) return;
  for (const m of text.matchAll(CONTROL)) {
    if (ALLOWED_CONTROLS.has(m[0])) continue;
    yield {
      code: InputReasonCodes.encodingControlChar,
      ruleId: 'encoding.control_char',
      span: { start: m.index, end: m.index + m[0].length },
    };
  }
  if (!isNfc(text)) {
    yield {
      code: InputReasonCodes.encodingNotNormalized,
      ruleId: 'encoding.not_nfc',
      span: { start: 0, end: text.length },
    };
  }
}
