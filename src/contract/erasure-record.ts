import { z } from 'zod';
import { canonicalJson } from './canonical-json.js';
import { DIGEST_PREFIX } from './digest.js';
import type { Sha256Hex } from './evidence-chain.js';

const Hash = z.string().regex(/^sha256:[0-9a-f]{64}$/);

/**
 * One erasure of a run's erasable values (docs/evidence-chain.md, "Erasure"), as the store's
 * append-only `erasures` table keeps it and a proof bundle carries it: who asked, when, why, which
 * paths (inside the events' data, e.g. `/userId`) and how many values of how many events. Never a value.
 *
 * Chained (migration `erasure_chain`): `prev` is the `hash` of the run's previous erasure record
 * (`null` for its first), `hash` is {@link erasureHash} of the record without `hash` and `head`, and
 * `head`, when the erasing process had an attestation key, is that hash signed as a compact JWS of
 * type {@link ERASURE_HEAD_TOKEN_TYPE}. A record without `prev` was stored before the chain
 * (**unchained**: the verifier fails it, `erasures.unchained`, never passes it).
 */
export const ErasureRecordSchema = z.strictObject({
  runId: z.string().min(1).max(300),
  /** The erasure's number in its run, from 1. */
  seq: z.number().int().positive(),
  erasedAt: z.string().min(1).max(64),
  actor: z.string().min(1).max(200),
  reason: z.string().max(1000).nullable(),
  paths: z.array(z.string().max(1000)).max(100_000),
  values: z.number().int().nonnegative(),
  events: z.number().int().nonnegative(),
  prev: Hash.nullable().optional(),
  hash: Hash.optional(),
  head: z.string().max(4096).optional(),
});
export type ErasureRecord = z.infer<typeof ErasureRecordSchema>;

/** The `typ` of a signed erasure head: never taken for a chain head or a decision. */
export const ERASURE_HEAD_TOKEN_TYPE = 'harness-erasure-head+jwt';

/** Domain tag of an erasure record's hash. */
export const ERASURE_RECORD_TAG = 'agent-harness/erasure-record/v1\u0000';

/** What a signed erasure head signs: the run, the record's number, its hash, when (seconds). */
export const ErasureHeadClaimsSchema = z.strictObject({
  run: z.string().min(1).max(300),
  seq: z.number().int().positive(),
  head: Hash,
  iat: z.number().int().nonnegative(),
});
export type ErasureHeadClaims = z.infer<typeof ErasureHeadClaimsSchema>;

/**
 * The hash of an erasure record: `sha256:` + SHA-256(`ERASURE_RECORD_TAG` ‖ canonical(record without
 * `hash` and `head`)), so it covers every field and the link `prev`. Pure: the caller supplies SHA-256.
 */
export function erasureHash(sha256: Sha256Hex, record: ErasureRecord): string {
  const { hash: _hash, head: _head, ...covered } = record;
  return DIGEST_PREFIX + sha256(ERASURE_RECORD_TAG + canonicalJson(covered));
}

/** A JSON pointer inside the events' data, e.g. `/userId` (at most 10 tokens of 1 to 100 characters). */
export const DataPointerSchema = z
  .string()
  .regex(/^(\/[^/]{1,100}){1,10}$/, 'a JSON pointer inside the event data, e.g. /userId');

/**
 * What to erase: the erasable values of one run (`runId`), or of every run that stored `subject`
 * (a value, e.g. a customer id), narrowed to the `paths` inside the events' data when given (any of
 * them). `actor` and `reason` are recorded with the erasure.
 */
export const ErasureRequestSchema = z
  .strictObject({
    runId: z.string().min(1).max(300).optional(),
    subject: z.union([z.string().min(1).max(1000), z.number()]).optional(),
    paths: z.array(DataPointerSchema).min(1).max(20).optional(),
    actor: z.string().trim().min(1).max(200),
    reason: z.string().max(1000).optional(),
    at: z.iso.datetime(),
  })
  .refine((r) => r.runId !== undefined || r.subject !== undefined, {
    message: 'name a run id or a subject value',
  });
export type ErasureRequest = z.infer<typeof ErasureRequestSchema>;
