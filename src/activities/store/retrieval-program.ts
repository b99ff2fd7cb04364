import {
  RETRIEVAL_MAX_EXCERPT_CHARS,
  accessUpTo,
  queryTerms,
  type RetrievalAccess,
  type RetrievalDocument,
  type RetrievalQuery,
  type RetrievedReference,
} from '../../contract/retrieval.js';
import { MAX_RECORD_BYTES } from '../../contract/store-records.js';
import { encodeJson } from './codec.js';
import { exec, insertOrCompare, rows } from './sql.js';
import type { SqlProgram } from './sql.js';

/**
 * Index one document (SQLite: its text into the FTS5 table too). The same document again is a no-op;
 * another under its id a `store.conflict`.
 */
export function* indexDocumentProgram(
  dialect: 'sqlite' | 'postgres',
  doc: RetrievalDocument,
): SqlProgram<'inserted' | 'identical'> {
  const outcome = yield* insertOrCompare(
    'retrieval_documents',
    {
      doc_id: doc.docId,
      tenant_id: doc.tenantId,
      source_ref: doc.sourceRef,
      access: doc.access,
      search: doc.text,
      body: encodeJson(doc, MAX_RECORD_BYTES, 'retrieval document'),
    },
    ['doc_id'],
    `retrieval document ${doc.docId}`,
  );
  if (outcome === 'inserted' && dialect === 'sqlite')
    yield* exec(
      'INSERT INTO retrieval_fts (rowid, search) SELECT rowid, search FROM retrieval_documents WHERE doc_id = ?',
      [doc.docId],
    );
  return outcome;
}

interface Row {
  doc_id: string;
  source_ref: string;
  access: string;
  search: string;
  score: number | string;
}

/**
 * The query's tenant's documents at or below its access that match any of its terms, best first
 * (SQLite: BM25; PostgreSQL: `ts_rank`), ties by id, at most `limit`. Terms are letters and digits
 * only ({@link queryTerms}), each quoted for FTS5 and joined with `|` for `to_tsquery`, so a query
 * cannot use either search syntax. The query is valid (the caller parsed it).
 */
export function* retrieveProgram(
  dialect: 'sqlite' | 'postgres',
  query: RetrievalQuery,
): SqlProgram<RetrievedReference[]> {
  const terms = queryTerms(query.text);
  if (terms.length === 0) return [];
  const allowed = accessUpTo(query.maxAccess);
  const inList = allowed.map(() => '?').join(', ');
  const found =
    dialect === 'sqlite'
      ? yield* rows<Row>(
          `SELECT d.doc_id, d.source_ref, d.access, d.search, -bm25(retrieval_fts) AS score
             FROM retrieval_fts JOIN retrieval_documents d ON d.rowid = retrieval_fts.rowid
            WHERE retrieval_fts MATCH ? AND d.tenant_id = ? AND d.access IN (${inList})
            ORDER BY score DESC, d.doc_id LIMIT ?`,
          [terms.map((t) => `"${t}"`).join(' OR '), query.tenantId, ...allowed, query.limit],
        )
      : yield* rows<Row>(
          `SELECT doc_id, source_ref, access, search, ts_rank(tsv, q) AS score
             FROM retrieval_documents, to_tsquery('simple', ?) q
            WHERE tsv @@ q AND tenant_id = ? AND access IN (${inList})
            ORDER BY score DESC, doc_id LIMIT ?`,
          [terms.join(' | '), query.tenantId, ...allowed, query.limit],
        );
  return found.map((r) => ({
    docId: r.doc_id,
    sourceRef: r.source_ref,
    access: r.access as RetrievalAccess,
    score: Number(r.score),
    excerpt: r.search.slice(0, RETRIEVAL_MAX_EXCERPT_CHARS),
    trust: 'untrusted' as const,
  }));
}
