import { z } from 'zod';

/**
 * Signed chain heads (docs/evidence-chain.md): a worker attestation key signs the hash of a run's
 * latest stored event when the event-append activity has stored a batch, as a compact JWS (EdDSA over
 * Ed25519, as decision tokens) with its own `typ`, so a head is never mistaken for a decision. The
 * activity returns it: it lands in the Temporal history as the activity's result, with no history
 * event of its own.
 */
export const CHAIN_HEAD_TOKEN_TYPE = 'harness-chain-head+jwt';

/**
 * The commit point a head was signed at (docs/evidence-chain.md, "Commit points"): `flush` after an
 * event flush stored a batch; `every` at each multiple of the worker's interval inside a stored batch;
 * `write.before` after a write's intent (and the events before it, its policy decision among them)
 * were stored, before its executor runs; `write.after` after its result was stored; `seal` at the
 * run's final `run.sealed` event. Heads signed before commit points existed carry none.
 */
export const CHAIN_HEAD_POINTS = ['flush', 'every', 'write.before', 'write.after', 'seal'] as const;
export type ChainHeadPoint = (typeof CHAIN_HEAD_POINTS)[number];

/**
 * What a head signs: the run, the sequence of the event it covers, that event's chain hash, when;
 * since commit points, where (`at`) and for a write's heads the invocation (`call`, its sequence).
 */
export const ChainHeadClaimsSchema = z.strictObject({
  run: z.string().min(1).max(300),
  seq: z.number().int().nonnegative(),
  head: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  iat: z.number().int().nonnegative(),
  at: z.enum(CHAIN_HEAD_POINTS).optional(),
  call: z.number().int().nonnegative().optional(),
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
  /** The signed head at the batch's last event (compact JWS). */
  readonly head: string;
  /** Heads at each multiple of the worker's interval inside the batch, before the last (`every`). */
  readonly heads?: readonly string[];
}

/** Most events between interval heads a worker may be configured with, and the default. */
export const MAX_HEAD_INTERVAL = 10_000;
export const DEFAULT_HEAD_INTERVAL = 100;

/** The seal's data: the `run.sealed` event the runner emits last (docs/events.md). */
export const RUN_SEALED_EVENT = 'run.sealed';

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
