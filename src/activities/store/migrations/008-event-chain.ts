import type { Migration } from './migration.js';

/**
 * The tamper-evident evidence record (docs/evidence-chain.md): each event carries `prev_hash` (the hash
 * of the run's previous event, or the run's genesis) and `chain_hash` (its own, over its canonical body
 * and `prev_hash`). Events stored before this migration keep both `NULL`: their runs are **unchained**,
 * and stay so for the events they append later; `harness verify` reports them as `chain.unchained`,
 * never as passed. Self-contained: nothing else names this migration's version (its name,
 * `event_chain`, is how the verifier finds when the chain began).
 */
export const migration008EventChain: Migration = {
  version: 8,
  name: 'event_chain',
  statements: [
    'ALTER TABLE events ADD COLUMN prev_hash TEXT',
    'ALTER TABLE events ADD COLUMN chain_hash TEXT',
  ],
};
