/** Keys whose values are phone numbers (case-insensitive): `phone`, `mobile`, `customerPhone`, `tel`... */
export const PHONE_KEY = /(phone|mobile|^tel$|telephone|msisdn)/i;

/** Phone numbers inside free text: mainland mobile numbers and E.164 numbers. */
const PHONE_IN_TEXT =
  /(?<![\d*])(?:\+?86[\s-]?)?1[3-9]\d(?:[\s-]?\d){8}(?![\d*])|(?<![\d*])\+\d(?:[\s-]?\d){7,14}(?![\d*])/g;

/**
 * Mask one phone number: keep the first three and the last four digits, replace the others with `*`
 * (`13800001001` -> `138****1001`). Separators are dropped. Numbers with fewer than 8 digits are
 * masked entirely. Never throws.
 */
export function maskPhoneNumber(value: string): string {
  const plus = value.trim().startsWith('+') ? '+' : '';
  const digits = value.replace(/\D/g, '');
  if (digits.length < 8) return '*'.repeat(Math.max(digits.length, 4));
  return `${plus}${digits.slice(0, 3)}${'*'.repeat(digits.length - 7)}${digits.slice(-4)}`;
}

/** Mask every phone number found inside `text`; other text is unchanged. */
export function maskPhonesInText(text: string): string {
  return text.replace(PHONE_IN_TEXT, (m) => maskPhoneNumber(m));
}
