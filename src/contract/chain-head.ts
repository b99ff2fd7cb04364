import { z } from 'zod';

/**
 * Signed chain heads (docs/evidence-chain.md): a worker attestation key signs the hash of a run's
 * latest stored event when the event-append activity has stored a batch, as a compact JWS (EdDSA over
 * Ed25519, as decision tokens) with its own `typ`, so a head is never mistaken for a decision. The
 * activity returns it: it lands in the Temporal history as the activity's result, with no history
 * event of its own.
 */
export const CHAIN_HEAD_TOKEN_TYPE = 'harness-chain-head+jwt';

/** What a head signs: the run, the sequence of the event it covers, that event's chain hash, when. */
export const ChainHeadClaimsSchema = z.strictObject({
  run: z.string().min(1).max(300),
  seq: z.number().int().nonnegative(),
  head: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  iat: z.number().int().nonnegative(),
});
export type ChainHeadClaims = z.infer<typeof ChainHeadClaimsSchema>;

/** A signed head's JWS header. */
export const ChainHeadHeaderSchema = z.strictObject({
  alg: z.literal('EdDSA'),
  typ: z.literal(CHAIN_HEAD_TOKEN_TYPE),
  kid: z.string().min(1).max(200),
});

/** What the event-append activity returns when the worker has an attestation key. */
export interface ChainHeadReceipt {
  /** The signed head (compact JWS). */
  readonly head: string;
}

/**
 * The attestation key registry: append-only, every key with its validity window, so a rotated key
 * still verifies the heads it signed while it was valid. `publicKey`: the raw 32-byte Ed25519 key,
 * base64url.
 */
export const AttestationRegistrySchema = z.strictObject({
  version: z.literal(1),
  keys: z
    .array(
      z.strictObject({
        keyId: z.string().min(1).max(200),
        publicKey: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
        notBefore: z.iso.datetime({ offset: true }),
        notAfter: z.iso.datetime({ offset: true }).optional(),
      }),
    )
    .max(1000),
});
export type AttestationRegistry = z.infer<typeof AttestationRegistrySchema>;
