/**
 * The payloads of a Temporal history in the SDK's JSON form (`historyToJSON`): each payload is
 * `{ metadata: { encoding: <base64>, … }, data?: <base64> }`. Used to withhold values in a proof bundle
 * and to count what it withheld (docs/evidence-chain.md, "Withheld outside the chain").
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Is `v` a payload in JSON form: a `metadata` map of base64 strings with an `encoding`, and at most a `data` string besides? */
export function isJsonFormPayload(v: unknown): v is Json {
  if (!isObject(v) || !isObject(v.metadata) || typeof v.metadata.encoding !== 'string') return false;
  if (!Object.values(v.metadata).every((m) => typeof m === 'string')) return false;
  return Object.keys(v).every((k) => k === 'metadata' || (k === 'data' && typeof v.data === 'string'));
}

const fromBase64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');

/** The payload's encoding (`json/plain`, `binary/null`, `binary/encrypted`, …). */
export function payloadEncoding(p: Json): string {
  return fromBase64(String((p.metadata as Json).encoding));
}

/** What {@link readJsonPayload} answers for a payload that is not `json/plain` (a codec's, binary, null). */
export const OPAQUE = Symbol('opaque');

/** The decoded value of a `json/plain` payload, else {@link OPAQUE}. Never throws. */
export function readJsonPayload(p: Json): unknown {
  if (payloadEncoding(p) !== 'json/plain') return OPAQUE;
  try {
    return JSON.parse(fromBase64(typeof p.data === 'string' ? p.data : '')) as unknown;
  } catch {
    return OPAQUE;
  }
}

/** Write `value` as the `json/plain` payload's data (changes `p` in place). */
export function writeJsonPayload(p: Json, value: unknown): void {
  p.data = Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

/**
 * Call `visit` on every payload in `root` (a history, or any part of one, in JSON form) with the name
 * of the field it stands under (the memo field, the search attribute, the marker detail, or `payloads`
 * of a list), and `onString` on every other string. Depth-first in document order; `root` may be changed
 * by the callbacks (the walk reads each node once). Never throws.
 */
export function forEachJsonPayload(
  root: unknown,
  visit: (payload: Json, field: string | undefined) => void,
  onString?: (holder: Json | unknown[], key: string | number, text: string) => void,
): void {
  const walk = (node: unknown, field: string | undefined, depth: number): void => {
    if (depth > 128) return;
    if (Array.isArray(node)) {
      node.forEach((item, i) => {
        if (typeof item === 'string') onString?.(node, i, item);
        else walk(item, field, depth + 1);
      });
      return;
    }
    if (!isObject(node)) return;
    if (isJsonFormPayload(node)) {
      visit(node, field);
      return;
    }
    for (const [k, child] of Object.entries(node)) {
      if (typeof child === 'string') onString?.(node, k, child);
      else walk(child, k, depth + 1);
    }
  };
  walk(root, undefined, 0);
}
