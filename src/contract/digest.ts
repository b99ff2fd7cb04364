import { canonicalJson } from './canonical-json.js';
import { sha256Hex } from './sha256.js';

/** Prefix of every digest the harness writes, naming the algorithm. */
export const DIGEST_PREFIX = 'sha256:';

/**
 * Digest of a JSON value in plain TypeScript, safe in the workflow sandbox: `sha256:` followed by the
 * lowercase hex SHA-256 of its {@link canonicalJson} encoding (UTF-8). Gives exactly what the
 * activities' `sha256Digest` (on `node:crypto`, for large values) gives. Meant for small values (tool
 * definitions, argument objects).
 *
 * @throws {CanonicalJsonError} `canonical_json.invalid_value` when the value is not JSON data.
 */
export function jsonDigest(value: unknown): string {
  return DIGEST_PREFIX + sha256Hex(canonicalJson(value));
}
