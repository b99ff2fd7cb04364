/**
 * The retrieval (RAG) port of the context builder (seed 004: Context Builder -> Memory/RAG Ports): a
 * query in, scored references out. Retrieved text is data from documents, never instructions: every
 * reference has trust `untrusted` and is sent to the model as a fenced data block (docs/context.md,
 * "Retrieval"). Types and bounds only.
 */
import { z } from 'zod';

/** Most references one query returns. */
export const RETRIEVAL_MAX_RESULTS = 8;
/** Most characters of a query's text (the rest is not searched). */
export const RETRIEVAL_MAX_QUERY_CHARS = 1_000;
/** Most search terms taken from a query's text. */
export const RETRIEVAL_MAX_TERMS = 16;
/** Most characters of one reference's excerpt. */
export const RETRIEVAL_MAX_EXCERPT_CHARS = 1_000;
/** Most characters of one indexed document's text. */
export const RETRIEVAL_MAX_DOCUMENT_CHARS = 16_000;

/** Access label of a document (and of the context item it becomes): its data classification. */
export const RetrievalAccessSchema = z.enum(['public', 'internal', 'confidential', 'restricted']);
export type RetrievalAccess = z.infer<typeof RetrievalAccessSchema>;
const RANK: Record<RetrievalAccess, number> = { public: 0, internal: 1, confidential: 2, restricted: 3 };
/** The labels at or below `max`. */
export const accessUpTo = (max: RetrievalAccess): RetrievalAccess[] =>
  RetrievalAccessSchema.options.filter((a) => RANK[a] <= RANK[max]);

const Id = z.string().min(1).max(200);

/** A document to index: whose it is (one tenant), where it comes from, how sensitive, its text. */
export const RetrievalDocumentSchema = z.strictObject({
  docId: Id,
  /** The tenant the document belongs to: only that tenant's runs retrieve it. */
  tenantId: Id,
  /** Where the text comes from, e.g. `kb://refunds/R002`. */
  sourceRef: z.string().min(1).max(500),
  access: RetrievalAccessSchema,
  text: z.string().min(1).max(RETRIEVAL_MAX_DOCUMENT_CHARS),
});
export type RetrievalDocument = z.infer<typeof RetrievalDocumentSchema>;

/**
 * One query. `tenantId` is the run's verified tenant (from its run record, never from the caller or
 * the model); `maxAccess` the most sensitive label the caller may see.
 */
export const RetrievalQuerySchema = z.strictObject({
  tenantId: Id,
  text: z.string().max(RETRIEVAL_MAX_QUERY_CHARS),
  limit: z.number().int().min(1).max(RETRIEVAL_MAX_RESULTS),
  maxAccess: RetrievalAccessSchema,
});
export type RetrievalQuery = z.infer<typeof RetrievalQuerySchema>;

/** One scored reference: higher `score` first; `excerpt` bounded; always `untrusted`. */
export interface RetrievedReference {
  readonly docId: string;
  readonly sourceRef: string;
  readonly access: RetrievalAccess;
  readonly score: number;
  readonly excerpt: string;
  readonly trust: 'untrusted';
}

/** A retrieval backend. */
export interface RetrievalPort {
  /**
   * The documents of the query's tenant, at or below its `maxAccess`, that match any of its terms,
   * best first, at most `limit`. A query without terms matches nothing.
   * @throws `store.invalid_query` (non-retryable) for a query outside its schema; store errors as thrown.
   */
  retrieve(query: RetrievalQuery): Promise<RetrievedReference[]>;
}

/**
 * The search terms of a query's text: runs of letters and digits, lower case, distinct, at most
 * {@link RETRIEVAL_MAX_TERMS} of at most 64 characters. No operator or quote of any search syntax
 * survives, so a query can only name words. Pure.
 */
export function queryTerms(text: string): string[] {
  const out: string[] = [];
  for (const m of text
    .slice(0, RETRIEVAL_MAX_QUERY_CHARS)
    .toLowerCase()
    .matchAll(/[\p{L}\p{N}]+/gu)) {
    const term = m[0].slice(0, 64);
    if (!out.includes(term)) out.push(term);
    if (out.length >= RETRIEVAL_MAX_TERMS) break;
  }
  return out;
}
