import { createPublicKey, verify } from 'node:crypto';
import { z } from 'zod';
import type { AttestationRegistry } from '../../contract/chain-head.js';

/** One key of the attestation key registry. */
export type AttestationKey = AttestationRegistry['keys'][number];

/** What {@link verifyAttestationJws} expects of a token besides a valid signature. */
export interface AttestationJwsExpectation<C extends { readonly iat: number }> {
  /** The header's `typ` (a chain head, a seal log checkpoint, an erasure head: each its own). */
  readonly typ: string;
  /** The claims' schema; `iat` (seconds) is when the key signed. */
  readonly claims: z.ZodType<C>;
  /**
   * What the claims must also say to be the token the caller looks for (its run, sequence, hash);
   * false refuses the token as `malformed`, before its key is looked up.
   */
  readonly binds?: (claims: C) => boolean;
}

/**
 * The outcome of {@link verifyAttestationJws}: the verified claims and key, or why not, with what was
 * read before the refusal (the claims, once they parsed) so a caller can word its own detail:
 * - `malformed`: longer than {@link MAX_ATTESTATION_JWS_LENGTH} (refused before anything is decoded);
 *   not three segments; a header or claims segment that is not canonical base64url (no padding, no
 *   `+` or `/`, no other character, no set trailing bits: what `signAttestation` writes); a header
 *   other than exactly `{ alg: 'EdDSA', typ, kid }` with the expected `typ` (another token type,
 *   another algorithm, an extra field) and a `kid` without control or format characters (it is echoed
 *   unverified in the callers' lines); claims outside the schema, or claims that do not
 *   {@link AttestationJwsExpectation.binds | bind} to what the caller expects;
 * - `unknown_key`: no registry, or `kid` is not in it;
 * - `key_not_valid`: the claims' `iat` is outside the key's window (`notBefore`, `notAfter`), ends
 *   included, so a rotated key still verifies what it signed while it was valid;
 * - `signature_invalid`: the signature segment is not canonical base64url (so one token has one
 *   spelling), or does not verify the first two segments with the key (or the registry's key cannot
 *   be read as an Ed25519 key).
 */
export type AttestationJwsResult<C> =
  | { readonly ok: true; readonly claims: C; readonly key: AttestationKey }
  | { readonly ok: false; readonly reason: 'malformed' }
  | { readonly ok: false; readonly reason: 'unknown_key'; readonly kid: string; readonly claims: C }
  | {
      readonly ok: false;
      readonly reason: 'key_not_valid' | 'signature_invalid';
      readonly kid: string;
      readonly claims: C;
      readonly key: AttestationKey;
    };

/** A refused token's result. */
export type AttestationJwsRefused<C> = Extract<AttestationJwsResult<C>, { readonly ok: false }>;

/** The reasons a token can be refused for. */
export type AttestationJwsRefusal = AttestationJwsRefused<unknown>['reason'];

/**
 * Verify a compact JWS an attestation key signed (EdDSA over Ed25519, `signAttestation` in
 * src/activities/attestation/chain-head-signer.ts): chain heads, seal log checkpoints and erasure heads
 * (docs/evidence-chain.md). Checks, in this order, the token's form and type (and the caller's
 * `binds`), the key in `registry`, the key's validity window at the claims' `iat`, and the signature;
 * the first that fails is the result's `reason`. Each caller maps the reasons to its own reason codes.
 * Decision and start tokens are not for this function: they are checked inside the workflow sandbox
 * against the principal registry (src/workflows/authz/signed-token.ts).
 * Pure apart from the signature check; never throws.
 */
export function verifyAttestationJws<C extends { readonly iat: number }>(
  token: string,
  registry: AttestationRegistry | undefined,
  expect: AttestationJwsExpectation<C>,
): AttestationJwsResult<C> {
  if (token.length > MAX_ATTESTATION_JWS_LENGTH) return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'malformed' };
  const [h = '', c = '', s = ''] = parts;
  const header = HeaderSchema.safeParse(segmentJson(h));
  if (!header.success || header.data.typ !== expect.typ) return { ok: false, reason: 'malformed' };
  const parsed = expect.claims.safeParse(segmentJson(c));
  if (!parsed.success || (expect.binds !== undefined && !expect.binds(parsed.data)))
    return { ok: false, reason: 'malformed' };
  const claims = parsed.data;
  const kid = header.data.kid;
  const key = registry?.keys.find((k) => k.keyId === kid);
  if (!key) return { ok: false, reason: 'unknown_key', kid, claims };
  if (!withinWindow(key, claims.iat)) return { ok: false, reason: 'key_not_valid', kid, claims, key };
  if (!signatureVerifies(`${h}.${c}`, s, key))
    return { ok: false, reason: 'signature_invalid', kid, claims, key };
  return { ok: true, claims, key };
}

/**
 * The longest token {@link verifyAttestationJws} decodes. The widest token the claims schemas allow (a
 * 200-character `kid`, a 300-character run id of 4-byte characters) is under 2,000 characters; erasure
 * records and seal log proofs store theirs in at most 4,096.
 */
export const MAX_ATTESTATION_JWS_LENGTH = 4096;

/**
 * An attestation token's header: exactly these three fields (what `signAttestation` writes); a `kid`
 * with no control, format (bidi overrides, zero-width) or line separator characters.
 */
const HeaderSchema = z.strictObject({
  alg: z.literal('EdDSA'),
  typ: z.string(),
  kid: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u),
});

/**
 * Is `segment` canonical base64url: only the url alphabet, no padding, and the very string its bytes
 * encode to (a length that is not one of an encoding, or set trailing bits, reads back otherwise)?
 * Node's decoder accepts all of these and yields the same bytes.
 */
function canonicalBase64url(segment: string): boolean {
  return (
    /^[A-Za-z0-9_-]*$/.test(segment) && Buffer.from(segment, 'base64url').toString('base64url') === segment
  );
}

/** Was `key` valid at `iat` (seconds)? */
function withinWindow(key: AttestationKey, iat: number): boolean {
  const at = iat * 1000;
  return at >= Date.parse(key.notBefore) && (key.notAfter === undefined || at <= Date.parse(key.notAfter));
}

/** Does `signature` (base64url) verify `signed` with the key's raw Ed25519 public key? Never throws. */
function signatureVerifies(signed: string, signature: string, key: AttestationKey): boolean {
  if (!canonicalBase64url(signature)) return false;
  try {
    const publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: key.publicKey },
      format: 'jwk',
    });
    return verify(null, Buffer.from(signed, 'ascii'), publicKey, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}

/** A base64url segment's JSON, or undefined when it is not canonical base64url-encoded JSON. */
function segmentJson(segment: string): unknown {
  if (!canonicalBase64url(segment)) return undefined;
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
