import { CN_ID, CN_MOBILE, E164, NANP, cnIdChecksumValid } from './detect-personal-data.js';
import { emailSpans } from './email-spans.js';
import type { Span } from './finding.js';
import type { MaskKind } from './obligations.js';
import { TakenSpans } from './taken-spans.js';

/** One masking edit of a string. */
export interface MaskEdit {
  readonly kind: MaskKind;
  readonly span: Span;
  readonly replacement: string;
}

/**
 * Mask one phone number: keep the first three and the last four national digits, star the rest
 * (`13800001001` -> `138****1001`; `+86 138-0000-1001` -> `+86 138****1001`). Numbers of fewer than
 * eight digits are starred entirely. Never throws.
 */
export function maskPhone(value: string): string {
  const cn = /^(\+?86[\s-]?)?(1[3-9]\d(?:[\s-]?\d{4}){2})$/.exec(value.trim());
  const prefix = cn?.[1] !== undefined ? '+86 ' : value.trim().startsWith('+') ? '+' : '';
  const digits = (cn?.[2] ?? value).replace(/\D/g, '');
  if (digits.length < 8) return '*'.repeat(Math.max(digits.length, 4));
  return `${prefix}${digits.slice(0, 3)}${'*'.repeat(digits.length - 7)}${digits.slice(-4)}`;
}

/** Mask an e-mail address: first character of the local part, `***`, the domain (`j***@example.com`). */
export function maskEmail(value: string): string {
  const at = value.lastIndexOf('@');
  return `${value.slice(0, 1)}***${value.slice(at)}`;
}

/** Mask an identity number: keep the first three and the last four characters. */
export function maskIdNumber(value: string): string {
  return `${value.slice(0, 3)}${'*'.repeat(Math.max(0, value.length - 7))}${value.slice(-4)}`;
}

/**
 * The masking edits `masks` require in `text`, non-overlapping, in text order. Identity numbers
 * (checksum-valid) are found before phone numbers so a digit run is masked once. Linear in the
 * length of `text` (plus sorting the edits); never throws.
 */
export function maskEdits(text: string, masks: ReadonlySet<MaskKind>): MaskEdit[] {
  const edits: MaskEdit[] = [];
  const taken = new TakenSpans(text.length);
  const add = (kind: MaskKind, start: number, match: string, replacement: string): void => {
    const span = { start, end: start + match.length };
    if (taken.overlaps(span)) return;
    edits.push({ kind, span, replacement });
    taken.take(span);
  };
  if (masks.has('id_number')) {
    for (const m of text.matchAll(CN_ID))
      if (cnIdChecksumValid(m[0])) add('id_number', m.index, m[0], maskIdNumber(m[0]));
  }
  if (masks.has('phone')) {
    for (const re of [CN_MOBILE, E164, NANP])
      for (const m of text.matchAll(re)) add('phone', m.index, m[0], maskPhone(m[0]));
  }
  if (masks.has('email')) {
    for (const { start, end } of emailSpans(text)) {
      const address = text.slice(start, end);
      add('email', start, address, maskEmail(address));
    }
  }
  return edits.sort((a, b) => a.span.start - b.span.start);
}
