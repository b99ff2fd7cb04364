import type { Migration } from './migration.js';

/**
 * The tenant and user a run was started for, as columns of the run record (its `run.started` event
 * names them), so listing runs filters by tenant in the store (docs/api.md: a tenant sees only its own
 * runs). Runs recorded before this have none.
 */
export const migration003RunTenants: Migration = {
  version: 3,
  name: 'run_tenants',
  statements: [
    `ALTER TABLE runs ADD COLUMN tenant_id TEXT`,
    `CREATE INDEX runs_by_tenant ON runs (tenant_id, updated_at)`,
  ],
};
