import type { Migration } from './migration.js';

/**
 * The run record (seed 000 §5: a run's profile, policy reference, configuration digest, budget, state
 * and result are kept by the store): one row per run, a projection of its events maintained in the
 * transaction that appends them, so it outlives the workflow history's retention.
 */
export const migration002Runs: Migration = {
  version: 2,
  name: 'runs',
  statements: [
    `CREATE TABLE runs (
      run_id TEXT NOT NULL PRIMARY KEY,
      profile TEXT NOT NULL,
      policy TEXT NOT NULL,
      status TEXT NOT NULL,
      last_seq INTEGER NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      body TEXT NOT NULL
    )`,
    `CREATE INDEX runs_by_status ON runs (status, updated_at)`,
  ],
};
