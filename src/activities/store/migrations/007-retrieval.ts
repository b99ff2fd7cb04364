import type { Migration } from './migration.js';

/**
 * Retrieval documents (docs/context.md, "Retrieval"): text a tenant's runs may retrieve, each with its
 * tenant and access label, full-text indexed: an FTS5 table over `search` on SQLite (contentless, keyed
 * by the document's rowid), a `tsvector` column with a GIN index on PostgreSQL. Documents are written
 * once (the same document again is a no-op).
 */
export const migration007Retrieval: Migration = {
  version: 7,
  name: 'retrieval',
  statements: [
    `CREATE TABLE retrieval_documents (
       doc_id TEXT PRIMARY KEY,
       tenant_id TEXT NOT NULL,
       source_ref TEXT NOT NULL,
       access TEXT NOT NULL,
       search TEXT NOT NULL,
       body TEXT NOT NULL
     )`,
    `CREATE INDEX retrieval_by_tenant ON retrieval_documents (tenant_id)`,
    `CREATE VIRTUAL TABLE retrieval_fts USING fts5(search, content='', tokenize='unicode61')`,
  ],
  postgres: [
    `CREATE TABLE retrieval_documents (
       doc_id TEXT PRIMARY KEY,
       tenant_id TEXT NOT NULL,
       source_ref TEXT NOT NULL,
       access TEXT NOT NULL,
       search TEXT NOT NULL,
       body TEXT NOT NULL,
       tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', search)) STORED
     )`,
    `CREATE INDEX retrieval_by_tenant ON retrieval_documents (tenant_id)`,
    `CREATE INDEX retrieval_by_tsv ON retrieval_documents USING GIN (tsv)`,
  ],
};
