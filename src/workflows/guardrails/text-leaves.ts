/** Limits of a walk over a JSON-like value. */
export interface WalkLimits {
  /** Deepest nesting visited; deeper values are reported in `truncated`. */
  readonly maxDepth: number;
  /** Most string leaves visited; further leaves are reported in `truncated`. */
  readonly maxStrings: number;
}

/** One string inside a value, located by JSON pointer. */
export interface TextLeaf {
  readonly path: string;
  readonly text: string;
}

export interface WalkResult {
  readonly leaves: TextLeaf[];
  /** Why the walk stopped early, or undefined when every string was visited. */
  readonly truncated?: 'depth' | 'strings';
  /** Pointer of the first value the walk did not visit. */
  readonly truncatedAt?: string;
}

/** Escape one JSON pointer token (RFC 6901). */
export function pointerToken(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Collect the string leaves of a JSON-like value (strings, arrays, plain objects; object keys are not
 * visited), bounded by `limits`. Never throws; cycles cannot occur in JSON data and are cut by depth.
 */
export function collectTextLeaves(value: unknown, limits: WalkLimits): WalkResult {
  const leaves: TextLeaf[] = [];
  let truncated: WalkResult['truncated'];
  let truncatedAt: string | undefined;
  const visit = (v: unknown, path: string, depth: number): void => {
    if (truncated !== undefined) return;
    if (typeof v === 'string') {
      if (leaves.length >= limits.maxStrings) {
        truncated = 'strings';
        truncatedAt = path;
        return;
      }
      leaves.push({ path, text: v });
      return;
    }
    if (v === null || typeof v !== 'object') return;
    if (depth >= limits.maxDepth) {
      truncated = 'depth';
      truncatedAt = path;
      return;
    }
    if (Array.isArray(v)) v.forEach((item, i) => visit(item, `${path}/${i}`, depth + 1));
    else for (const [k, item] of Object.entries(v)) visit(item, `${path}/${pointerToken(k)}`, depth + 1);
  };
  visit(value, '', 0);
  return truncated === undefined ? { leaves } : { leaves, truncated, truncatedAt };
}

/**
 * A copy of `value` with every string leaf replaced by `fn(path, text)`. Arrays and plain objects are
 * copied; other values are kept as they are. `value` itself is not changed.
 */
export function mapTextLeaves(value: unknown, fn: (path: string, text: string) => string): unknown {
  const visit = (v: unknown, path: string): unknown => {
    if (typeof v === 'string') return fn(path, v);
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((item, i) => visit(item, `${path}/${i}`));
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) out[k] = visit(item, `${path}/${pointerToken(k)}`);
    return out;
  };
  return visit(value, '');
}
