export type { EvidenceStore, RunListOptions } from '../../contract/evidence-store.js';
export { openEvidenceStore, parseStoreUrl } from './open-evidence-store.js';
export type { OpenEvidenceStoreOptions, StoreLocation } from './open-evidence-store.js';
export { StoreError, STORE_ERROR_CODES, RETRYABLE_STORE_ERROR_CODES } from './errors.js';
export type { StoreErrorCode } from './errors.js';
export { BLOB_REF_PREFIX, parseBlobRef } from './blob-program.js';
export { SCHEMA_VERSION } from './migrations/index.js';
export * from '../../contract/store-records.js';
export { RunRecordSchema, applyEventToRun, type RunRecord } from '../../contract/run-record.js';
export {
  FailureReasonSchema,
  FailureSampleRecordSchema,
  failureReasonOf,
  failureSampleOf,
  type FailureReason,
  type FailureSampleRecord,
} from '../../contract/failure-sample-record.js';
export { retrievalOf } from './store-retrieval.js';
export { SqlRetrieval } from './sql-retrieval.js';
export { chainHashAt, latestChainHead, readEventChain, type EventChain } from './event-chain-reader.js';
export { sha256Text, type ChainedEventRow } from './chain-program.js';
export { erasureOf } from './store-erasure.js';
export { SqlErasure } from './sql-erasure.js';
