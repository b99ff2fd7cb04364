import { canonicalJson, isPlainObject } from './canonical-json.js';
import { DIGEST_PREFIX } from './digest.js';
import { isDeclaredKey, isDeclaredPath, type ErasableRule } from './erasable-rule.js';

/**
 * Erasable values and their salted commitments (docs/evidence-chain.md, "Erasable values").
 *
 * A value of a stored event is **erasable** when its key, anywhere in the event's `data` (and the
 * envelope's copy of it), is named by {@link ERASABLE_KEY}: who a run is for (`userId`, `customerId`)
 * and personal contact and identity data (email, phone, address, name, birth date, national id,
 * passport). The store keeps in its place, in the chained body, the commitment
 * `{ "$commit": "sha256:<hex of SHA-256(salt ‖ canonical(value))>" }` (salt: 32 random bytes per value),
 * and the salt and value in a separate table it can delete (crypto-shredding): the chain hashes the
 * commitment, so it verifies before and after the value is erased. Pure: the caller supplies SHA-256.
 */
export const ERASABLE_KEY =
  /^(user_?id|customer_?id|e_?mail|phone|phone_?number|mobile|address|shipping_?address|billing_?address|full_?name|first_?name|last_?name|birth_?date|date_?of_?birth|national_?id|id_?number|passport)$/i;

/** The key of a commitment object. */
export const COMMIT_KEY = '$commit';

/** What reads show in place of an erased value (the commitment stays in the chain). */
export const WITHHELD_BY_POLICY = '[withheld by policy]';

/** What reads show in place of a stored value that does not open its commitment (a changed value). */
export const COMMITMENT_MISMATCH = '[value does not match its commitment]';

/** SHA-256 of bytes as lowercase hex (node:crypto in the store and the verifier). */
export type Sha256Bytes = (bytes: Uint8Array) => string;

/** One erasable value of an event: its JSON pointer (RFC 6901) in the stored event body, and the value. */
export interface ErasableValue {
  readonly path: string;
  readonly value: unknown;
}

/** A commitment's opening: the salt (64 hex) and the value's canonical JSON. */
export interface Opening {
  readonly path: string;
  readonly salt: string;
  readonly value: string;
}

const HEX64 = /^[0-9a-f]{64}$/;
const COMMITMENT = /^sha256:[0-9a-f]{64}$/;

/** Is `v` a commitment object `{ "$commit": "sha256:<64 hex>" }`? */
export function isCommitment(v: unknown): v is { readonly $commit: string } {
  if (!isPlainObject(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 1 && keys[0] === COMMIT_KEY && COMMITMENT.test(String(v[COMMIT_KEY]));
}

/**
 * The commitment digest of a value's canonical JSON text under a salt (64 hex):
 * `sha256:` + hex SHA-256(salt bytes ‖ UTF-8 of the text).
 * @throws Error when the salt is not 64 lowercase hex digits.
 */
export function commitmentDigest(sha256: Sha256Bytes, salt: string, canonicalValue: string): string {
  if (!HEX64.test(salt)) throw new Error('a salt is 32 bytes as 64 lowercase hex digits');
  const saltBytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) saltBytes[i] = parseInt(salt.slice(i * 2, i * 2 + 2), 16);
  const text = new TextEncoder().encode(canonicalValue);
  const bytes = new Uint8Array(32 + text.length);
  bytes.set(saltBytes, 0);
  bytes.set(text, 32);
  return DIGEST_PREFIX + sha256(bytes);
}

/** Does `opening` open `commitment` (the digest of a commitment object)? Never throws. */
export function opens(sha256: Sha256Bytes, commitment: string, opening: Opening): boolean {
  try {
    return commitmentDigest(sha256, opening.salt, opening.value) === commitment;
  } catch {
    return false;
  }
}

const escape = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');
const unescape = (token: string) => token.replaceAll('~1', '/').replaceAll('~0', '~');

/**
 * The erasable values of an event (decoded): each value under an {@link ERASABLE_KEY} key or a key the
 * app's `rule` declares, at any depth of `data` and of `envelope.data`, and each value at a pointer the
 * rule declares for the event's type, that is not `null`, with its pointer in the event body. A value
 * so named is taken whole (an address object is one value). An object that already looks like a
 * commitment (something a tool or model put in the data) is taken as a value too, so every commitment
 * in a stored body is one the store made and can open. Linear in the event's size (times the rule's
 * bounded pointers at each node).
 */
export function findErasable(event: unknown, rule?: ErasableRule): ErasableValue[] {
  const found: ErasableValue[] = [];
  if (!isPlainObject(event)) return found;
  const type = typeof event.type === 'string' ? event.type : '';
  const walk = (v: unknown, path: string, tokens: string[], erasable: boolean): void => {
    if ((erasable && v !== null && v !== undefined) || isCommitment(v)) {
      found.push({ path, value: v });
      return;
    }
    const child = (c: unknown, token: string) => {
      const at = [...tokens, token];
      const named = ERASABLE_KEY.test(token) || isDeclaredKey(rule, token);
      walk(c, `${path}/${escape(token)}`, at, (named && !Array.isArray(v)) || isDeclaredPath(rule, type, at));
    };
    if (Array.isArray(v)) v.forEach((item, i) => child(item, String(i)));
    else if (isPlainObject(v)) for (const [k, c] of Object.entries(v)) child(c, k);
  };
  walk(event.data, '/data', [], false);
  const envelope = event.envelope;
  if (isPlainObject(envelope)) walk(envelope.data, '/envelope/data', [], false);
  return found;
}

/** The pointers of every commitment object in a decoded event body, in document order. */
export function findCommitments(value: unknown): { readonly path: string; readonly commitment: string }[] {
  const found: { path: string; commitment: string }[] = [];
  const walk = (v: unknown, path: string): void => {
    if (isCommitment(v)) {
      found.push({ path, commitment: v.$commit });
      return;
    }
    if (Array.isArray(v)) v.forEach((item, i) => walk(item, `${path}/${i}`));
    else if (isPlainObject(v))
      for (const [k, child] of Object.entries(v)) walk(child, `${path}/${escape(k)}`);
  };
  walk(value, '');
  return found;
}

/**
 * Replace the value at `pointer` in `root` (a decoded JSON tree, changed in place) with `value`.
 * @returns false when the pointer names nothing in `root`.
 */
export function replaceAt(root: unknown, pointer: string, value: unknown): boolean {
  const tokens = pointer.split('/').slice(1).map(unescape);
  const last = tokens.pop();
  if (last === undefined) return false;
  let node: unknown = root;
  for (const t of tokens) {
    if (Array.isArray(node)) node = node[Number(t)];
    else if (isPlainObject(node)) node = node[t];
    else return false;
  }
  if (Array.isArray(node) && /^\d+$/.test(last) && Number(last) < node.length) node[Number(last)] = value;
  else if (isPlainObject(node) && Object.hasOwn(node, last)) node[last] = value;
  else return false;
  return true;
}

/** The value at `pointer` in `root`, `undefined` when it names nothing. */
export function valueAt(root: unknown, pointer: string): unknown {
  let node: unknown = root;
  for (const t of pointer.split('/').slice(1).map(unescape)) {
    if (Array.isArray(node)) node = node[Number(t)];
    else if (isPlainObject(node)) node = node[t];
    else return undefined;
  }
  return node;
}

/**
 * The path of a pointer inside the event's data, the same for `data` and the envelope's copy
 * (`/data/userId` and `/envelope/data/userId` are both `/userId`): what `harness erase --path` names.
 */
export function dataPath(pointer: string): string {
  if (pointer.startsWith('/envelope/data/')) return pointer.slice('/envelope/data'.length);
  if (pointer.startsWith('/data/')) return pointer.slice('/data'.length);
  return pointer;
}

/** The canonical JSON text an opening stores for a value. */
export const openingValue = (value: unknown): string => canonicalJson(value);
