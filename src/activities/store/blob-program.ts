import { createHash } from 'node:crypto';
import { isHarnessError } from '../../contract/errors.js';
import { DIGEST_PREFIX } from '../digest.js';
import { decodeJson } from './codec.js';
import { StoreError } from './errors.js';
import type { BlobRef } from '../../contract/store-records.js';
import { insertOrCompare, rows } from './sql.js';
import type { SqlProgram } from './sql.js';

/** Scheme of blob references: `blob://sha256:<64 hex>`. */
export const BLOB_REF_PREFIX = 'blob://';
const BLOB_REF_PATTERN = /^blob:\/\/(sha256:[0-9a-f]{64})$/;

/** `sha256:<hex>` of UTF-8 text. */
export function textDigest(text: string): string {
  return DIGEST_PREFIX + createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The digest a blob reference names.
 * @throws `store.invalid_ref` when `ref` is not `blob://sha256:<64 lowercase hex>`.
 */
export function parseBlobRef(ref: string): string {
  const match = BLOB_REF_PATTERN.exec(ref);
  if (match?.[1] === undefined) {
    throw new StoreError('store.invalid_ref', `not a blob reference: expected blob://sha256:<64 hex>`, {
      ref: ref.slice(0, 120),
    });
  }
  return match[1];
}

/** The reference of a blob holding `text` (canonical JSON): its address, known before it is stored. */
export function blobRefOfText(text: string): BlobRef {
  const digest = textDigest(text);
  return { ref: BLOB_REF_PREFIX + digest, digest };
}

/**
 * Store canonical JSON text under its digest (content-addressed: a repeat is a no-op). `ref` is
 * {@link blobRefOfText} of `text`, when the caller has it already.
 */
export function* putBlobProgram(text: string, ref: BlobRef = blobRefOfText(text)): SqlProgram<BlobRef> {
  const { digest } = ref;
  try {
    yield* insertOrCompare(
      'blobs',
      { digest, size: Buffer.byteLength(text, 'utf8'), body: text },
      ['digest'],
      `blob ${digest}`,
    );
  } catch (err) {
    // Same digest, other bytes: the stored copy no longer matches its address.
    if (isHarnessError(err, 'store.conflict')) {
      throw new StoreError('store.digest_mismatch', `the stored copy of blob ${digest} is corrupt`, {
        digest,
      });
    }
    throw err;
  }
  return ref;
}

/** Load a blob and verify its text against its digest. */
export function* getBlobProgram(ref: string): SqlProgram<unknown> {
  const digest = parseBlobRef(ref);
  const found = yield* rows<{ body: string }>('SELECT body FROM blobs WHERE digest = ?', [digest]);
  const text = found[0]?.body;
  if (text === undefined) throw new StoreError('store.not_found', `no blob ${digest}`, { digest });
  const actual = textDigest(text);
  if (actual !== digest) {
    throw new StoreError(
      'store.digest_mismatch',
      `blob ${digest} is corrupt: its stored bytes hash to ${actual}`,
      {
        digest,
        actual,
      },
    );
  }
  return decodeJson(text);
}
