/** Limits on a JSON value from outside (a decision's payload, an operator's evidence). */
export interface JsonBounds {
  /** Most characters of the value as compact JSON (counted approximately, never under). */
  readonly maxChars: number;
  /** Most levels of nested objects and arrays (the value itself is level 1). */
  readonly maxDepth: number;
}

/** A decision's whole payload (docs/signals.md "Limits"): room for a 10,000-character input and a token. */
export const DECISION_PAYLOAD_BOUNDS: JsonBounds = { maxChars: 32 * 1024, maxDepth: 8 };

/**
 * A tool call's arguments as the model proposed them: what the evidence store keeps of an intent
 * (64 KiB), nested at most 16 levels.
 */
export const TOOL_ARGUMENT_BOUNDS: JsonBounds = { maxChars: 64 * 1024, maxDepth: 16 };

/**
 * Why `value` exceeds `bounds` or is not plain JSON data, or undefined when it is within them. Walks
 * the value without recursion and stops at the first problem, so a value nested a million levels deep
 * or holding a million elements costs no more than the limit (a recursive serializer would overflow
 * the stack inside the workflow).
 */
export function jsonBoundsProblem(value: unknown, bounds: JsonBounds): string | undefined {
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 1 }];
  let chars = 0;
  const tooLarge = `larger than ${bounds.maxChars} characters as JSON`;
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (v === null || typeof v === 'boolean') chars += 5;
    else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return 'holds a number that is not finite';
      chars += 24;
    } else if (typeof v === 'string') chars += v.length + 2;
    else if (typeof v === 'object') {
      if (depth > bounds.maxDepth) return `nested deeper than ${bounds.maxDepth} levels`;
      const proto = Object.getPrototypeOf(v) as unknown;
      if (!Array.isArray(v) && proto !== Object.prototype && proto !== null)
        return 'holds something other than plain JSON data';
      chars += 2;
      const entries: [string, unknown][] = Array.isArray(v)
        ? v.map((x): [string, unknown] => ['', x])
        : Object.entries(v as Record<string, unknown>);
      for (const [k, x] of entries) {
        chars += k.length + 4;
        if (chars > bounds.maxChars) return tooLarge;
        stack.push({ v: x, depth: depth + 1 });
      }
    } else return `holds a ${typeof v}, which is not JSON data`;
    if (chars > bounds.maxChars) return tooLarge;
  }
  return undefined;
}
