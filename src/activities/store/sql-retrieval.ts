import {
  RetrievalDocumentSchema,
  RetrievalQuerySchema,
  type RetrievalDocument,
  type RetrievalPort,
  type RetrievalQuery,
  type RetrievedReference,
} from '../../contract/retrieval.js';
import { StoreError } from './errors.js';
import { indexDocumentProgram, retrieveProgram } from './retrieval-program.js';
import type { SqlExecutor } from './sql.js';

/**
 * The {@link RetrievalPort} on the evidence store's database: full-text search over the
 * `retrieval_documents` of one tenant (SQLite FTS5, PostgreSQL `tsvector`; migration `retrieval`).
 * Obtained with `SqlEvidenceStore.retrieval()`.
 */
export class SqlRetrieval implements RetrievalPort {
  constructor(private readonly executor: SqlExecutor) {}

  /**
   * Index one document (written by the composition: the tenant's knowledge base, never by a model).
   * @throws StoreError `store.invalid_record` for a document outside its schema (nothing written),
   *   `store.conflict` when another document holds its id; other store errors as thrown.
   */
  async index(doc: RetrievalDocument): Promise<'inserted' | 'identical'> {
    const parsed = RetrievalDocumentSchema.safeParse(doc);
    if (!parsed.success)
      throw new StoreError(
        'store.invalid_record',
        `invalid retrieval document: ${parsed.error.issues[0]?.message}`,
        {
          path: parsed.error.issues[0]?.path.join('.') ?? '',
        },
      );
    const dialect = this.executor.dialect;
    return this.executor.transaction(() => indexDocumentProgram(dialect, parsed.data));
  }

  /** See {@link RetrievalPort.retrieve}; `store.invalid_query` (nothing read). */
  async retrieve(query: RetrievalQuery): Promise<RetrievedReference[]> {
    const parsed = RetrievalQuerySchema.safeParse(query);
    if (!parsed.success)
      throw new StoreError(
        'store.invalid_query',
        `invalid retrieval query: ${parsed.error.issues[0]?.message}`,
        {
          path: parsed.error.issues[0]?.path.join('.') ?? '',
        },
      );
    const dialect = this.executor.dialect;
    return this.executor.snapshot(() => retrieveProgram(dialect, parsed.data));
  }
}
