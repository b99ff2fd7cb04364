/**
 * `value` with every nested object and array frozen (in place), for data that is pinned once built.
 * Never throws on JSON data; returns its argument.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}
