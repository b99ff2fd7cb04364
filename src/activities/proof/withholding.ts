import { createHmac, randomBytes } from 'node:crypto';
import { canonicalJson, isPlainObject } from '../../contract/canonical-json.js';
import { ERASABLE_KEY } from '../../contract/erasable-values.js';
import { MIN_WITHHELD_SUBSTRING, WITHHELD_KEY, withheldTag } from '../../contract/withheld-values.js';

/** Deepest a redacted tree is walked; anything deeper is withheld whole. */
const MAX_DEPTH = 256;

/**
 * Signed chain heads (compact JWS the verifier checks by signature; their claims hold the run, a
 * sequence and a hash, no personal value): never scrubbed, so a learnt string that happens to stand in
 * their base64url cannot break a signature.
 */
const SIGNED_HEADS: ReadonlySet<string> = new Set(['head', 'heads']);

/** Is a value under `key` withheld whole (an erasable key, or a start token or taint digests)? */
export const isWithheldKey = (key: string): boolean => ERASABLE_KEY.test(key) || WITHHELD_KEY.test(key);

/**
 * The withholding of one bundle export (docs/evidence-chain.md, "Withheld outside the chain"): a
 * fresh 32-byte key, never written down, and the strings learnt from the values to withhold.
 * - {@link tag}: a value's withheld tag (HMAC-SHA-256 of its canonical JSON under the key);
 * - {@link learn} / {@link collect}: remember the strings of values to withhold, so their copies
 *   inside longer strings (a message naming the customer) are withheld too. A string of fewer than
 *   `MIN_WITHHELD_SUBSTRING` characters, or one the chain holds in clear (under a key no rule names),
 *   is withheld only where it stands whole under a withheld key: elsewhere it would hide nothing and
 *   break the comparisons with the chain;
 * - {@link redact}: a copy of a JSON tree with every value under a withheld key replaced by its tag and
 *   every learnt string inside other strings replaced by its tag (signed heads apart).
 * Deterministic for one instance: the same value gets the same tag wherever it stands. Never throws.
 */
export class Withholding {
  private readonly learnt = new Set<string>();
  private pattern: RegExp | null | undefined;

  constructor(
    private readonly chainText: string,
    private readonly key: Uint8Array = randomBytes(32),
  ) {}

  /** The tag of `value`. */
  tag(value: unknown): string {
    let text: string;
    try {
      text = canonicalJson(value);
    } catch {
      text = JSON.stringify(value) ?? 'null';
    }
    return withheldTag(createHmac('sha256', this.key).update(text, 'utf8').digest('hex'));
  }

  /** Remember the strings (and numbers, as written) of a value to withhold; `split` learns each whitespace-separated word. */
  learn(value: unknown, split = false): void {
    const add = (s: string) => {
      for (const word of split ? s.split(/\s+/) : [s])
        if (word.length >= MIN_WITHHELD_SUBSTRING && !this.inChain(word)) this.learnt.add(word);
    };
    const walk = (v: unknown, depth: number): void => {
      if (depth > MAX_DEPTH) return;
      if (typeof v === 'string') add(v);
      else if (typeof v === 'number' && Number.isFinite(v)) add(String(v));
      else if (Array.isArray(v)) v.forEach((x) => walk(x, depth + 1));
      else if (isPlainObject(v)) Object.values(v).forEach((x) => walk(x, depth + 1));
    };
    walk(value, 0);
    this.pattern = undefined;
  }

  /** Learn every value of `tree` that stands under a withheld key. */
  collect(tree: unknown): void {
    const walk = (v: unknown, depth: number): void => {
      if (depth > MAX_DEPTH) return;
      if (Array.isArray(v)) v.forEach((x) => walk(x, depth + 1));
      else if (isPlainObject(v))
        for (const [k, child] of Object.entries(v)) {
          if (isWithheldKey(k) && child !== null && child !== undefined)
            this.learn(child, WITHHELD_KEY.test(k));
          else walk(child, depth + 1);
        }
    };
    walk(tree, 0);
  }

  /** `text` with every learnt string in it replaced by its tag (one pass, longest first). */
  scrub(text: string): string {
    const pattern = this.compiled();
    return pattern === null ? text : text.replace(pattern, (found) => this.tag(found));
  }

  /** A copy of `tree` with its withheld values replaced by their tags (see the class). */
  redact(tree: unknown): unknown {
    const walk = (v: unknown, depth: number): unknown => {
      if (typeof v === 'string') return this.scrub(v);
      // Deeper than any record the harness stores: withheld whole rather than left unread.
      if (depth > MAX_DEPTH) return this.tag(v);
      if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
      if (!isPlainObject(v)) return v;
      const out: Record<string, unknown> = {};
      for (const [k, child] of Object.entries(v))
        out[k] =
          isWithheldKey(k) && child !== null && child !== undefined
            ? this.tag(child)
            : SIGNED_HEADS.has(k)
              ? child
              : walk(child, depth + 1);
      return out;
    };
    return walk(tree, 0);
  }

  private inChain(s: string): boolean {
    return this.chainText.includes(JSON.stringify(s).slice(1, -1));
  }

  private compiled(): RegExp | null {
    if (this.pattern === undefined) {
      const words = [...this.learnt].sort((a, b) => b.length - a.length);
      this.pattern =
        words.length === 0
          ? null
          : new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
    }
    return this.pattern;
  }
}
