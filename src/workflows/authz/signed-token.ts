import { asciiBytes, base64UrlDecode, base64UrlDecodeText } from './base64url.js';
import { ed25519 } from './ed25519.js';
import type { DirectoryKey } from './principal-directory.js';

/**
 * What decision tokens and start tokens share: a compact JWS (EdDSA over Ed25519) read, its signature
 * checked against a registered key, and its times checked against the workflow clock. Pure and
 * deterministic; nothing here throws.
 */

/** How far in the future an issued-at may be (clock skew between signer and server). */
export const MAX_CLOCK_SKEW_SECONDS = 300;

/** The three segments of a compact JWS, or undefined when it is not three. */
export function jwsSegments(token: string): { h: string; c: string; s: string } | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [h = '', c = '', s = ''] = parts;
  return { h, c, s };
}

/** A base64url segment's JSON, or undefined when it is not base64url-encoded JSON. */
export function segmentJson(segment: string): unknown {
  const text = base64UrlDecodeText(segment);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Does the signature segment verify the signed segments with `key`? */
export function signatureVerifies(jws: { h: string; c: string; s: string }, key: DirectoryKey): boolean {
  const signature = base64UrlDecode(jws.s);
  if (signature?.length !== 64) return false;
  try {
    return ed25519.verify(signature, asciiBytes(`${jws.h}.${jws.c}`), key.publicKey);
  } catch {
    return false;
  }
}

/**
 * Why a token's times refuse it at `nowMs`, or undefined: its key retired (issued after `notAfter`, or
 * used after it: an issued-at is the signer's word), issued in the future, valid longer than
 * `maxLifetimeSeconds`, or expired. The reason names the code's last part (`key_retired`,
 * `token_not_yet_valid`, `token_lifetime`, `token_expired`).
 */
export function tokenTimeProblem(
  key: DirectoryKey,
  claims: { readonly iat: number; readonly exp: number },
  nowMs: number,
  maxLifetimeSeconds: number,
): { readonly reason: string; readonly message: string } | undefined {
  const nowSeconds = Math.floor(nowMs / 1000);
  if (key.notAfterMs !== undefined && (claims.iat * 1000 > key.notAfterMs || nowMs > key.notAfterMs))
    return { reason: 'key_retired', message: `key ${key.keyId} is retired` };
  if (claims.iat > nowSeconds + MAX_CLOCK_SKEW_SECONDS)
    return { reason: 'token_not_yet_valid', message: 'the token was issued in the future' };
  if (claims.exp - claims.iat > maxLifetimeSeconds)
    return { reason: 'token_lifetime', message: `a token lives at most ${maxLifetimeSeconds} s` };
  if (claims.exp <= nowSeconds) return { reason: 'token_expired', message: 'the token has expired' };
  return undefined;
}
