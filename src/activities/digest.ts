import { createHash } from 'node:crypto';
import { canonicalJson } from '../contract/canonical-json.js';
import { DIGEST_PREFIX } from '../contract/digest.js';

export { canonicalJson } from '../contract/canonical-json.js';
export { DIGEST_PREFIX } from '../contract/digest.js';

/**
 * Digest of a JSON value: `sha256:` followed by the lowercase hex SHA-256 of its
 * {@link canonicalJson} encoding (UTF-8). Equal JSON data gives equal digests regardless of key order,
 * process or host.
 *
 * Uses `node:crypto` (fast on large values): not for the workflow sandbox, where `jsonDigest` from the
 * contract gives the same digest in plain TypeScript.
 *
 * @throws {CanonicalJsonError} `canonical_json.invalid_value` when the value is not JSON data.
 */
export function sha256Digest(value: unknown): string {
  return DIGEST_PREFIX + createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}
