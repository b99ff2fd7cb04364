import { sha256Hex } from '../../contract/sha256.js';
import { canonicalJson } from '../../registry/sandbox.js';

/**
 * `sha256:<hex>` of the canonical JSON of `value`, computed in the sandbox: what binds an approval to
 * a tool call's arguments.
 * @throws CanonicalJsonError (`canonical_json.invalid_value`) when `value` is not JSON data.
 */
export function argsDigestOf(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}
