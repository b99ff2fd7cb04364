import { z } from 'zod';

/**
 * The seal log (docs/evidence-chain.md, "The seal log"): an append-only list of run seals kept as a
 * Merkle tree in RFC 9162's structure (contract/merkle-tree.ts), whose signed checkpoints an operator
 * publishes where they cannot rewrite them. One entry per sealed run: its run id, the sequence of its
 * `run.sealed` event and that event's chain hash (the seal's `head`). The leaf is the entry's
 * canonical JSON without its index.
 */
export const SealLogEntrySchema = z.strictObject({
  /** The entry's position in the log, from 0. */
  i: z.number().int().nonnegative(),
  run: z.string().min(1).max(300),
  seq: z.number().int().positive(),
  /** The chain hash of the run's `run.sealed` event (`sha256:<hex>`, as the chain stores it). */
  head: z.string().regex(/^sha256:[0-9a-f]{64}$/),
});
export type SealLogEntry = z.infer<typeof SealLogEntrySchema>;

/** The JWS `typ` of a signed checkpoint (not a chain head's: one is never taken for the other). */
export const SEAL_LOG_CHECKPOINT_TYPE = 'harness-seal-log-checkpoint+jwt';

/** What a checkpoint signs: the log's name, its size and tree head (hex) at a time. */
export const SealLogCheckpointClaimsSchema = z.strictObject({
  log: z.string().min(1).max(200),
  size: z.number().int().nonnegative(),
  root: z.string().regex(/^[0-9a-f]{64}$/),
  iat: z.number().int().nonnegative(),
});
export type SealLogCheckpointClaims = z.infer<typeof SealLogCheckpointClaimsSchema>;

/** The format string of a seal log proof file; another format is refused. */
export const SEAL_LOG_PROOF_FORMAT = 'agent-harness.seal-log-proof/v1';

const HexPath = z.array(z.string().regex(/^[0-9a-f]{64}$/)).max(64);

/**
 * A run's proof of inclusion in the seal log (`harness log prove`): its entry, the signed checkpoint
 * of the tree it is proven in, the audit path, and (with `--since`) a consistency proof from an
 * earlier, published checkpoint to that one, so a log rewritten since then is detected.
 */
export const SealLogProofSchema = z.strictObject({
  format: z.literal(SEAL_LOG_PROOF_FORMAT),
  entry: SealLogEntrySchema,
  checkpoint: z.string().min(1).max(4096),
  path: HexPath,
  consistency: z.strictObject({ from: z.string().min(1).max(4096), path: HexPath }).optional(),
});
export type SealLogProof = z.infer<typeof SealLogProofSchema>;
