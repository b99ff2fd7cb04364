import { HarnessError } from './errors.js';

/**
 * Raised when a value cannot be encoded as canonical JSON: it holds something JSON has no encoding
 * for (a function, `undefined` in an array, a non-finite number, a bigint, a symbol), an object that
 * is not a plain object or array (a `Date`, a `Map`, a class instance) or a cycle.
 */
export class CanonicalJsonError extends HarnessError {
  constructor(pointer: string, reason: string) {
    super(
      'canonical_json.invalid_value',
      `value at ${pointer === '' ? '/' : pointer} is not JSON: ${reason}`,
      {
        pointer,
        reason,
      },
    );
  }
}

/**
 * Canonical JSON encoding: object keys sorted by UTF-16 code unit order, no whitespace, strings and
 * numbers as `JSON.stringify` writes them (so `-0` is `0`), object properties whose value is
 * `undefined` left out. Two values that are equal as JSON data encode to the same string whatever
 * their key order or the process that encodes them.
 *
 * Pure: no I/O, no clock, no Node builtins; safe inside the workflow sandbox.
 *
 * @throws {CanonicalJsonError} `canonical_json.invalid_value` when the value is not JSON data.
 */
export function canonicalJson(value: unknown): string {
  return encode(value, undefined, 0);
}

/**
 * Where a value sits: the container holding it, the key or index that leads to it, and the same for
 * the container. Built as the encoder descends and read only when a value is rejected (its JSON
 * pointer) or the nesting is deep enough to look for a cycle, so the common path builds no pointers.
 */
interface Trail {
  readonly up: Trail | undefined;
  readonly holder: object;
  readonly token: string | number;
}

/**
 * Nesting depth from which every container is checked against the containers above it. A cycle
 * nests without end, so it is always caught here; shallower values skip the check.
 */
const CYCLE_CHECK_DEPTH = 64;

function encode(value: unknown, trail: Trail | undefined, depth: number): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw invalid(trail, `non-finite number ${String(value)}`);
      return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      return encodeContainer(value, trail, depth);
    default:
      throw invalid(trail, `a ${typeof value} has no JSON encoding`);
  }
}

function encodeContainer(value: object, trail: Trail | undefined, depth: number): string {
  if (depth >= CYCLE_CHECK_DEPTH && holds(trail, value)) throw invalid(firstRepeat(trail), 'cycle');
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const at: Trail = { up: trail, holder: value, token: i };
      const item: unknown = value[i];
      if (item === undefined) throw invalid(at, 'undefined inside an array');
      out += (i === 0 ? '' : ',') + encode(item, at, depth + 1);
    }
    return `${out}]`;
  }
  if (!isPlainObject(value)) throw invalid(trail, 'not a plain object or array');
  let out = '{';
  for (const key of Object.keys(value).sort()) {
    const item = value[key];
    if (item === undefined) continue;
    const text = encode(item, { up: trail, holder: value, token: key }, depth + 1);
    out += (out.length === 1 ? '' : ',') + JSON.stringify(key) + ':' + text;
  }
  return `${out}}`;
}

/** True when `value` is one of the containers above this position. */
function holds(trail: Trail | undefined, value: object): boolean {
  for (let t = trail; t !== undefined; t = t.up) if (t.holder === value) return true;
  return false;
}

/** The shallowest position on `trail` whose value is one of its own containers: where the cycle closes. */
function firstRepeat(trail: Trail | undefined): Trail | undefined {
  const path: Trail[] = [];
  for (let t = trail; t !== undefined; t = t.up) path.unshift(t);
  for (let i = 1; i < path.length; i++) {
    const value = path[i]!.holder;
    if (path.slice(0, i).some((t) => t.holder === value)) return path[i - 1];
  }
  return trail;
}

function invalid(trail: Trail | undefined, reason: string): CanonicalJsonError {
  const tokens: string[] = [];
  for (let t = trail; t !== undefined; t = t.up) tokens.push(escapePointerToken(String(t.token)));
  return new CanonicalJsonError(tokens.length === 0 ? '' : `/${tokens.reverse().join('/')}`, reason);
}

/**
 * True for objects whose prototype is `null` or a realm's `Object.prototype`. Realm-independent, so
 * values built inside a `vm` context (the workflow sandbox) count as plain objects too.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** Escapes one JSON pointer reference token (RFC 6901): `~` as `~0`, `/` as `~1`. */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Number of bytes of the UTF-8 encoding of `text`, computed without TextEncoder or Buffer. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
