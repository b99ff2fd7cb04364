import { z } from 'zod';
import { AttestationRegistrySchema } from './chain-head.js';
import { ErasureRecordSchema } from './erasure-record.js';

/** The format string of a proof bundle; a bundle of another format is refused. */
export const PROOF_BUNDLE_FORMAT = 'agent-harness.proof-bundle/v1';
/** Largest bundle `harness verify --bundle` reads. */
export const MAX_PROOF_BUNDLE_BYTES = 256 * 1024 * 1024;

const ChainRowSchema = z.strictObject({
  seq: z.number().int().nonnegative(),
  body: z.string(),
  prevHash: z.string().nullable(),
  chainHash: z.string().nullable(),
});

const OpeningSchema = z.strictObject({
  seq: z.number().int().nonnegative(),
  path: z.string().max(1000),
  salt: z.string(),
  value: z.string(),
});

/**
 * A self-contained proof bundle (docs/evidence-chain.md, "The bundle"): everything `harness verify
 * --bundle` needs on another machine, with only the package installed. The registry of approvers the
 * run used travels inside the Temporal history (the results of the activities that loaded it), so
 * the decisions verify against what the run itself recorded.
 * - `chain`: every stored event of the run as its exact canonical bytes with its links, and when the
 *   source store began chaining;
 * - `invocations`, `artifacts`: the store's records of intents, results and artifacts;
 * - `history`: the run's Temporal history in the SDK's JSON form (`historyToJSON`); `null` when
 *   Temporal no longer had it, which the history and decision checks then report as failed;
 * - `earlierHistories`: when the run continued as new, the histories of its earlier generations,
 *   oldest first (absent for a run of one generation, so its bundle reads as before);
 * - `attestation`: the attestation key registry entries the signed heads in the history need;
 * - `erasure`: the run's erasures (who, when, which paths; never a value) and, only when exported
 *   with its values (`harness export --with-values`), the openings (salt and value) of the commitments
 *   still stored; without them every erasable value is withheld by policy and the chain still verifies.
 *   `withValues: true` says the openings are every one the store still held, so each value withheld
 *   must be accounted for by an erasure record (the `erasures` check). Absent in bundles from before
 *   crypto-shredding.
 * Exported without values (or after an erasure), every copy of an erasable value in `invocations`,
 * `artifacts`, `history` and `earlierHistories` stands as a withheld tag (contract/withheld-values.ts;
 * docs/evidence-chain.md, "Withheld outside the chain"), in the same format (a verifier from before
 * it fails the withheld artifact digests with `artifacts.digest_mismatch`).
 */
export const ProofBundleSchema = z.strictObject({
  format: z.literal(PROOF_BUNDLE_FORMAT),
  runId: z.string().min(1).max(300),
  exportedAt: z.string(),
  chain: z.strictObject({ chainStart: z.string().nullable(), events: z.array(ChainRowSchema) }),
  invocations: z.array(
    z.object({
      runId: z.string(),
      seq: z.number().int(),
      intents: z.array(z.record(z.string(), z.unknown())),
      results: z.array(z.record(z.string(), z.unknown())),
    }),
  ),
  artifacts: z.array(z.record(z.string(), z.unknown())),
  history: z.record(z.string(), z.unknown()).nullable(),
  earlierHistories: z.array(z.record(z.string(), z.unknown())).optional(),
  /** The attestation keys the signed heads are checked with (`null`: none were at hand at export). */
  attestation: AttestationRegistrySchema.nullable(),
  erasure: z
    .strictObject({
      erasures: z.array(ErasureRecordSchema),
      openings: z.array(OpeningSchema),
      withValues: z.boolean().optional(),
    })
    .optional(),
});
export type ProofBundle = z.infer<typeof ProofBundleSchema>;
