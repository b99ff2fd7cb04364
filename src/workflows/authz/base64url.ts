/**
 * base64url (RFC 4648 §5, no padding) for the workflow sandbox, where `Buffer` is not available.
 * Strict: a character outside the alphabet or an impossible length gives `undefined`.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LOOKUP: Record<string, number> = Object.fromEntries([...ALPHABET].map((c, i) => [c, i]));

/** The bytes of a base64url string without padding, or `undefined` when it is not one. */
export function base64UrlDecode(text: string): Uint8Array | undefined {
  if (text.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let o = 0;
  for (const c of text) {
    const v = LOOKUP[c];
    if (v === undefined) return undefined;
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (value >> bits) & 0xff;
    }
  }
  // Leftover bits must be zero (a canonical encoding).
  if ((value & ((1 << bits) - 1)) !== 0) return undefined;
  return out.subarray(0, o);
}

/** base64url without padding. */
export function base64UrlEncode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = ((value << 8) | b) & 0xffffff;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += ALPHABET[(value >> bits) & 63];
    }
  }
  if (bits > 0) out += ALPHABET[(value << (6 - bits)) & 63];
  return out;
}

/** The UTF-8 text of base64url bytes, or `undefined`. */
export function base64UrlDecodeText(text: string): string | undefined {
  const bytes = base64UrlDecode(text);
  if (bytes === undefined) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** ASCII bytes of a string known to be ASCII (a JWS signing input). */
export function asciiBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0x7f;
  return out;
}
