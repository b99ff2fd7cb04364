import type { Migration } from './migration.js';

/**
 * Thread memory (docs/context.md, "Memory"): verified facts a run leaves for the next runs of its
 * thread, scoped to the thread's tenant and user. An entry is forgotten by marking it, so what a run
 * read stays explainable; `expires_at` and `forgotten_at` keep it out of later reads.
 */
export const migration005ThreadMemory: Migration = {
  version: 5,
  name: 'thread_memory',
  statements: [
    `CREATE TABLE memory_entries (
       entry_id TEXT PRIMARY KEY,
       thread_id TEXT NOT NULL,
       tenant_id TEXT NOT NULL,
       user_id TEXT NOT NULL,
       name TEXT NOT NULL,
       created_at TEXT NOT NULL,
       expires_at TEXT,
       forgotten_at TEXT,
       body TEXT NOT NULL
     )`,
    `CREATE INDEX memory_by_thread ON memory_entries (thread_id, tenant_id, user_id, name, created_at)`,
  ],
};
