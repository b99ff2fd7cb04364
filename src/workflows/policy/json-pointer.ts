/**
 * RFC 6901 JSON pointers over plain JSON values. Pure; used by path fields and rule predicates.
 */

/** A pointer is `""` (the whole document) or `/`-prefixed tokens with `~0`/`~1` escapes only. */
export const JSON_POINTER_PATTERN = /^(?:\/(?:[^~/]|~[01])*)*$/;

/** True when `pointer` is a syntactically valid RFC 6901 pointer. */
export function isJsonPointer(pointer: string): boolean {
  return JSON_POINTER_PATTERN.test(pointer);
}

/** Result of resolving a pointer: `found: false` when any step is missing. */
export type PointerResult = { found: true; value: unknown } | { found: false };

/**
 * Resolve `pointer` in `doc`. Object steps use own properties only; array steps need a canonical
 * index (`0`, `1`, ... without leading zeros). An invalid pointer resolves to `found: false`.
 */
export function resolvePointer(doc: unknown, pointer: string): PointerResult {
  if (!isJsonPointer(pointer)) return { found: false };
  if (pointer === '') return { found: true, value: doc };
  let current: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) {
      if (!/^(?:0|[1-9][0-9]*)$/.test(token)) return { found: false };
      const index = Number(token);
      if (index >= current.length) return { found: false };
      current = current[index];
    } else if (current !== null && typeof current === 'object') {
      if (!Object.prototype.hasOwnProperty.call(current, token)) return { found: false };
      current = (current as Record<string, unknown>)[token];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}
