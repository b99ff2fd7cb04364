import { HarnessError } from '../../contract/errors.js';

/**
 * Every error code the evidence store raises. Codes are stable: activities and tests match on them.
 * Only `store.unavailable` is retryable (the backend was busy or unreachable and nothing was
 * committed); every other code fails the same way when the same call is repeated.
 */
export const STORE_ERROR_CODES = [
  /** The store URL names no supported backend or is malformed. */
  'store.invalid_url',
  /** A record does not match its schema (missing field, wrong type, bad artifact). */
  'store.invalid_record',
  /** A retrieval query does not match its schema (no tenant, too long, a limit out of bounds). */
  'store.invalid_query',
  /** A JSON payload is over its size bound; large data belongs in a blob. */
  'store.payload_too_large',
  /** A different record already exists under the same key; the first record stands. */
  'store.conflict',
  /** A result was recorded for an invocation attempt that has no recorded intent. */
  'store.no_intent',
  /** A blob reference points at nothing. */
  'store.not_found',
  /** A blob reference is malformed. */
  'store.invalid_ref',
  /** Stored bytes no longer hash to their digest: the store is corrupt. */
  'store.digest_mismatch',
  /** The database holds a schema version this build does not know: it refuses to touch it. */
  'store.schema_too_new',
  /** An applied migration has another name than this build's migration of the same version. */
  'store.schema_mismatch',
  /** Busy, locked, unreachable or shutting down; retry later. Nothing was committed. */
  'store.unavailable',
  /** An unexpected backend failure; the transaction was rolled back. */
  'store.backend_error',
  /** The store was closed. */
  'store.closed',
] as const;
export type StoreErrorCode = (typeof STORE_ERROR_CODES)[number];

/** Codes worth retrying with backoff. */
export const RETRYABLE_STORE_ERROR_CODES: readonly StoreErrorCode[] = ['store.unavailable'];

/** The one error class of the evidence store; `code` is one of {@link STORE_ERROR_CODES}. */
export class StoreError extends HarnessError {
  declare readonly code: StoreErrorCode;
  constructor(
    code: StoreErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(code, message, details);
    if (options?.cause !== undefined) this.cause = options.cause;
  }

  /** True when the same call may succeed later. */
  get retryable(): boolean {
    return RETRYABLE_STORE_ERROR_CODES.includes(this.code);
  }
}
