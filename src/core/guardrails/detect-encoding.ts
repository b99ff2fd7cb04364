import type { Detection } from './finding.js';
import { InputReasonCodes } from './reason-codes.js';

/** C0/C1 controls except tab, LF, CR; plus invisible format characters (zero-width, bidi overrides, BOM). */
const CONTROL = /[\p{Cc}\p{Cf}]/gu;
const ALLOWED_CONTROLS = new Set(['\t', '\n', '\r']);

/**
 * Find encoding problems in `text`: lone UTF-16 surrogates (each one), control and invisible format
 * characters (each one), and text that is not in Unicode NFC (one detection over the whole string;
 * checked only when there is no lone surrogate). Never throws.
 */
export function detectEncoding(text: string): Detection[] {
  const out: Detection[] = [];
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
    out.push({
      code: InputReasonCodes.encodingLoneSurrogate,
      ruleId: 'encoding.lone_surrogate',
      span: { start: i, end: i + 1 },
    });
  }
  if (lone) return out;
  for (const m of text.matchAll(CONTROL)) {
    if (ALLOWED_CONTROLS.has(m[0])) continue;
    out.push({
      code: InputReasonCodes.encodingControlChar,
      ruleId: 'encoding.control_char',
      span: { start: m.index, end: m.index + m[0].length },
    });
  }
  if (text.normalize('NFC') !== text) {
    out.push({
      code: InputReasonCodes.encodingNotNormalized,
      ruleId: 'encoding.not_nfc',
      span: { start: 0, end: text.length },
    });
  }
  return out;
}
