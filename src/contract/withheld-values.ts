/**
 * Values a proof bundle withholds outside its chain (docs/evidence-chain.md, "Withheld outside the
 * chain"). A bundle exported without values replaces every copy of an erasable value in its
 * invocations, artifacts and Temporal histories by a **withheld tag**, `[withheld by policy #<32 hex>]`:
 * the first 128 bits of HMAC-SHA-256 under a key drawn for that one export and never written down, of
 * the value's canonical JSON. Equal values get equal tags within a bundle (so the verifier still
 * compares the store with the history), and no tag can be checked against a guess (the key is gone).
 * Pure: no Node builtins.
 */

/** One tag, as it stands in a withheld value's place (a whole value, or inside a longer string). */
export const WITHHELD_TAG = /\[withheld by policy #[0-9a-f]{32}\]/g;

const WHOLE_TAG = /^\[withheld by policy #[0-9a-f]{32}\]$/;

/** The tag of a value whose keyed digest (hex, at least 32 digits) is `hex`. */
export function withheldTag(hex: string): string {
  return `[withheld by policy #${hex.slice(0, 32)}]`;
}

/** Is `value` exactly one withheld tag (a withheld value, or an artifact digest withheld with its data)? */
export function isWithheldTag(value: unknown): boolean {
  return typeof value === 'string' && WHOLE_TAG.test(value);
}

/** The withheld tags in `text`, each occurrence. */
export function withheldTagsIn(text: string): string[] {
  return text.match(WITHHELD_TAG) ?? [];
}

/**
 * Keys a bundle withholds outside the chain besides the erasable ones (`ERASABLE_KEY`), because they
 * hold a personal value in another form: the start token (a JWS whose claims name the requester) and
 * the data-taint digests of the personal data and secrets a tool returned (unsalted SHA-256 prefixes of
 * single values: `taint` of a tool result, `taint.personal`/`taint.secret` of the run's facts).
 */
export const WITHHELD_KEY = /^(start_?token|taint|taint\.personal|taint\.secret)$/i;

/** Search attributes that name a person (the requester): withheld in the bundle's histories. */
export const PERSONAL_SEARCH_ATTRIBUTES: ReadonlySet<string> = new Set(['AgentUser']);

/** Shortest string a bundle also withholds where it stands inside a longer string (shorter ones are only withheld whole). */
export const MIN_WITHHELD_SUBSTRING = 4;
