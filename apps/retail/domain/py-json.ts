/**
 * Python's `json.dumps(value, sort_keys=True)` of a flat map of strings: `{"a": "b", "c": "d"}`
 * (separators `", "` and `": "`), keys sorted by code point, non-ASCII escaped as `\uXXXX`
 * (`ensure_ascii`).
 */
export function pyJsonDumpsSortedStringMap(map: ReadonlyMap<string, string>): string {
  const keys = [...map.keys()].sort(compareCodePoints);
  const body = keys.map((k) => `${pyJsonString(k)}: ${pyJsonString(map.get(k) ?? '')}`).join(', ');
  return `{${body}}`;
}

/** Python's `json.dumps` of one string (`ensure_ascii=True`). */
export function pyJsonString(s: string): string {
  return JSON.stringify(s).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Python's string order: by code point (UTF-16 order differs only above the BMP). */
export function compareCodePoints(a: string, b: string): number {
  const ca = [...a];
  const cb = [...b];
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const d = (ca[i]?.codePointAt(0) ?? 0) - (cb[i]?.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
  return ca.length - cb.length;
}
