import type { Migration } from './migration.js';

/**
 * Failure samples (docs/evaluation.md "Failure samples from production runs"): one row per run that
 * ended `failed`, `budget_exhausted` or blocked by a guardrail, written in the transaction that
 * stores the run's terminal event, so every worker of every app collects them without a workflow
 * change. `harness failures list|export` read them.
 */
export const migration004FailureSamples: Migration = {
  version: 4,
  name: 'failure_samples',
  statements: [
    `CREATE TABLE failure_samples (
      run_id TEXT NOT NULL PRIMARY KEY,
      reason TEXT NOT NULL,
      code TEXT NOT NULL,
      ended_at TEXT NOT NULL,
      tenant_id TEXT,
      body TEXT NOT NULL
    )`,
    `CREATE INDEX failure_samples_by_end ON failure_samples (ended_at)`,
    `CREATE INDEX failure_samples_by_reason ON failure_samples (reason, ended_at)`,
  ],
};
