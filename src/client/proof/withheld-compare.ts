import { canonicalJson, isPlainObject } from '../../contract/canonical-json.js';
import { isWithheldTag, WITHHELD_TAG, withheldTagsIn } from '../../contract/withheld-values.js';

/** How two copies of a value compare when either may hold withheld tags. */
export interface WithheldComparison {
  /** The copies agree: equal, or different only where one of them is withheld. */
  readonly same: boolean;
  /** Positions where one copy is withheld and the other is not (compared by position only). */
  readonly masked: number;
}

const TAG_START = '\\[withheld by policy #';
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Compare the store's copy of a value with the history's (docs/evidence-chain.md, "Withheld outside
 * the chain"). Copies withheld at the same export carry the same tags, so they must be equal, tags
 * included: a tag that differs is a different value. Where only one copy is withheld (the other was
 * opaque at export: a codec's payload the auditor decoded), the tag stands for any value that is not
 * itself a tag, and the position is counted in `masked`, never passed silently. Linear in the sizes of
 * the copies for whole values; a string with tags inside is matched as a pattern. Never throws.
 */
export function compareWithheld(stored: unknown, recorded: unknown): WithheldComparison {
  let masked = 0;
  const same = (a: unknown, b: unknown, depth: number): boolean => {
    if (depth > 256) return safeCanonical(a) === safeCanonical(b);
    if (typeof a === 'string' && typeof b === 'string') return sameText(a, b);
    if (isWithheldTag(a) !== isWithheldTag(b)) {
      masked += 1;
      return true;
    }
    if (Array.isArray(a) && Array.isArray(b))
      return a.length === b.length && a.every((x, i) => same(x, b[i], depth + 1));
    if (isPlainObject(a) && isPlainObject(b)) {
      const keys = Object.keys(a).filter((k) => a[k] !== undefined);
      const other = Object.keys(b).filter((k) => b[k] !== undefined);
      return (
        keys.length === other.length && keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k], depth + 1))
      );
    }
    return safeCanonical(a) === safeCanonical(b);
  };
  const sameText = (a: string, b: string): boolean => {
    if (a === b) return true;
    const ta = withheldTagsIn(a).length;
    const tb = withheldTagsIn(b).length;
    if (ta === tb) return false;
    const [pattern, text] = ta > tb ? [a, b] : [b, a];
    if (!textPattern(pattern).test(text)) return false;
    masked += Math.abs(ta - tb);
    return true;
  };
  return { same: same(stored, recorded, 0), masked };
}

/** `text` as a pattern: each tag matches itself or any non-empty run of text that holds no tag. */
function textPattern(text: string): RegExp {
  const tags = text.match(WITHHELD_TAG) ?? [];
  const pieces = text.split(WITHHELD_TAG).map(escapeRegExp);
  let source = pieces[0] ?? '';
  tags.forEach((tag, i) => {
    source += `(?:${escapeRegExp(tag)}|(?:(?!${TAG_START})[\\s\\S])+?)${pieces[i + 1] ?? ''}`;
  });
  return new RegExp(`^${source}$`);
}

function safeCanonical(v: unknown): string {
  try {
    return canonicalJson(v ?? null);
  } catch {
    return String(v);
  }
}
