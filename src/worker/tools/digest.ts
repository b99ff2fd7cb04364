import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/tools/canonical-json.js';

export { canonicalJson } from '../../core/tools/canonical-json.js';

/** Prefix of every digest the harness writes, naming the algorithm. */
export const DIGEST_PREFIX = 'sha256:';

/**
 * Digest of a JSON value: `sha256:` followed by the lowercase hex SHA-256 of its
 * {@link canonicalJson} encoding (UTF-8). Equal JSON data gives equal digests regardless of key order,
 * process or host.
 *
 * Uses `node:crypto`: not for the workflow sandbox. Compute digests in the client or an activity and
 * pass them into the workflow.
 *
 * @throws {CanonicalJsonError} `canonical_json.invalid_value` when the value is not JSON data.
 */
export function sha256Digest(value: unknown): string {
  return DIGEST_PREFIX + createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}
