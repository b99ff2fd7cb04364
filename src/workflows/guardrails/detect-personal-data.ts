import { emailSpans } from './email-spans.js';
import type { Detection } from './finding.js';
import { InputReasonCodes } from './reason-codes.js';
import { TakenSpans } from './taken-spans.js';

// Every pattern here has bounded length and fixed-width lookarounds: the work per start position is
// constant, so a global search is linear. E-mail addresses are found by `emailSpans` (linear too).

/** Mainland mobile numbers (optionally +86), digits optionally grouped 3-4-4 by spaces or dashes. */
export const CN_MOBILE = /(?<![\d*])(?:\+?86[\s-]?)?1[3-9]\d(?:[\s-]?\d{4}){2}(?![\d*])/g;
/** E.164 numbers with a leading `+` (8 to 15 digits, optional single separators). */
export const E164 = /(?<![\w+*])\+[1-9](?:[\s-]?\d){7,14}(?![\d*])/g;
/** North American numbers `(555) 123-4567` or `555-123-4567`. */
export const NANP = /(?<![\d*])(?:\(\d{3}\)\s?|\d{3}[-.])\d{3}[-.]\d{4}(?![\d*])/g;
/** Chinese resident identity numbers (18 characters, birth date 1800-2099), before the checksum. */
export const CN_ID =
  /(?<![\dA-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![\dA-Za-z])/g;
/** Digit runs that could be card numbers (13 to 19 digits, optional single spaces or dashes). */
const CARD_CANDIDATE = /(?<![\d*])\d(?:[ -]?\d){12,18}(?![\d*])/g;

/** Luhn (mod 10) check of a digit string. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const CN_ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const CN_ID_CHECK = '10X98765432';

/** GB 11643 check digit of an 18-character Chinese identity number (case-insensitive `X`). */
export function cnIdChecksumValid(id: string): boolean {
  if (!/^\d{17}[\dXx]$/.test(id)) return false;
  let sum = 0;
  for (let i = 0; i < 17; i += 1) sum += Number(id[i]) * (CN_ID_WEIGHTS[i] ?? 0);
  return CN_ID_CHECK[sum % 11] === id[17]!.toUpperCase();
}

/**
 * Find personal data in `text`: identity numbers (checksum-valid), card numbers (Luhn-valid),
 * phone numbers and e-mail addresses. A digit run is reported once, by the most specific rule
 * (identity number, then card, then phone). Linear in the length of `text`; never throws.
 */
export function* detectPersonalData(text: string): Generator<Detection> {
  const taken = new TakenSpans(text.length);
  for (const m of text.matchAll(CN_ID)) {
    if (cnIdChecksumValid(m[0])) {
      const span = { start: m.index, end: m.index + m[0].length };
      taken.take(span);
      yield { code: InputReasonCodes.piiCnIdNumber, ruleId: 'pii.cn_id_number', span };
    }
  }
  for (const m of text.matchAll(CARD_CANDIDATE)) {
    const span = { start: m.index, end: m.index + m[0].length };
    if (!taken.overlaps(span) && luhnValid(m[0].replace(/\D/g, ''))) {
      taken.take(span);
      yield { code: InputReasonCodes.piiCardNumber, ruleId: 'pii.card_number', span };
    }
  }
  const phones: [string, RegExp][] = [
    ['pii.phone.cn_mobile', CN_MOBILE],
    ['pii.phone.e164', E164],
    ['pii.phone.nanp', NANP],
  ];
  for (const [ruleId, pattern] of phones) {
    for (const m of text.matchAll(pattern)) {
      const span = { start: m.index, end: m.index + m[0].length };
      if (taken.overlaps(span)) continue;
      taken.take(span);
      yield { code: InputReasonCodes.piiPhone, ruleId, span };
    }
  }
  for (const span of emailSpans(text)) yield { code: InputReasonCodes.piiEmail, ruleId: 'pii.email', span };
}
