import type { Migration } from './migration.js';

/**
 * Crypto-shredding (docs/evidence-chain.md, "Erasable values"): events stored from this migration on
 * carry a salted commitment in place of each erasable value (contract/erasable-values.ts), and
 * `erasable_values` holds the salt and the value, one row per value, until `harness erase` deletes
 * them. `erasures` is the append-only record of every erasure (who, when, which paths, how many
 * values), never the values. Events stored before this migration keep their values in the chained
 * body. Self-contained: nothing else names this migration's version.
 */
export const migration009ErasableValues: Migration = {
  version: 9,
  name: 'erasable_values',
  statements: [
    `CREATE TABLE erasable_values (
       run_id TEXT NOT NULL,
       seq INTEGER NOT NULL,
       path TEXT NOT NULL,
       salt TEXT NOT NULL,
       value TEXT NOT NULL,
       PRIMARY KEY (run_id, seq, path)
     )`,
    `CREATE TABLE erasures (
       run_id TEXT NOT NULL,
       seq INTEGER NOT NULL,
       erased_at TEXT NOT NULL,
       body TEXT NOT NULL,
       PRIMARY KEY (run_id, seq)
     )`,
  ],
};
