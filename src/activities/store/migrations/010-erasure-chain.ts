import type { Migration } from './migration.js';

/**
 * The erasure records chained (docs/evidence-chain.md, "Erasure"): each record stored from this
 * migration on carries, in its body, the hash of its run's previous record (`prev`) and its own
 * (`hash`, also in the column `chain_hash`, which the next record links to), and a signed head when the
 * erasing process has an attestation key. Records stored before keep `chain_hash` `NULL` and no `prev`
 * in their body: they are **unchained**, the verifier fails their run's erasures with
 * `erasures.unchained` (never passes them), and a later record of such a run links to `null`.
 * Self-contained: nothing else names this migration's version.
 */
export const migration010ErasureChain: Migration = {
  version: 10,
  name: 'erasure_chain',
  statements: ['ALTER TABLE erasures ADD COLUMN chain_hash TEXT'],
};
