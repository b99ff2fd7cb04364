import { HarnessError } from '../domain/errors.js';

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
  return encodeFast(value, 0) ?? encode(value, '', new Set<object>());
}

/** Nesting depth past which the fast encoder hands over to the checking one (which finds cycles). */
const FAST_MAX_DEPTH = 256;

/**
 * The encoding of {@link encode} without the bookkeeping only an error needs (JSON pointers, the
 * ancestor set). Gives up (`undefined`) on anything {@link encode} would reject and on nesting deeper
 * than {@link FAST_MAX_DEPTH}; {@link encode} then encodes the value again and names the offending
 * pointer. Same output as {@link encode} for every value it accepts.
 */
function encodeFast(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case 'object': {
      if (value === null) return 'null';
      if (depth >= FAST_MAX_DEPTH) return undefined;
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          const text = item === undefined ? undefined : encodeFast(item, depth + 1);
          if (text === undefined) return undefined;
          out += (i === 0 ? '' : ',') + text;
        }
        return `${out}]`;
      }
      if (!isPlainObject(value)) return undefined;
      let out = '{';
      for (const key of Object.keys(value).sort()) {
        const item = value[key];
        if (item === undefined) continue;
        const text = encodeFast(item, depth + 1);
        if (text === undefined) return undefined;
        out += (out.length === 1 ? '' : ',') + JSON.stringify(key) + ':' + text;
      }
      return `${out}}`;
    }
    default:
      return undefined;
  }
}

function encode(value: unknown, pointer: string, ancestors: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value))
        throw new CanonicalJsonError(pointer, `non-finite number ${String(value)}`);
      return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      return encodeContainer(value, pointer, ancestors);
    default:
      throw new CanonicalJsonError(pointer, `a ${typeof value} has no JSON encoding`);
  }
}

function encodeContainer(value: object, pointer: string, ancestors: Set<object>): string {
  if (ancestors.has(value)) throw new CanonicalJsonError(pointer, 'cycle');
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const items = (value as unknown[]).map((item, i) => {
        if (item === undefined) throw new CanonicalJsonError(`${pointer}/${i}`, 'undefined inside an array');
        return encode(item, `${pointer}/${i}`, ancestors);
      });
      return `[${items.join(',')}]`;
    }
    if (!isPlainObject(value)) throw new CanonicalJsonError(pointer, 'not a plain object or array');
    const record = value;
    const parts: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const item = record[key];
      if (item === undefined) continue;
      parts.push(
        `${JSON.stringify(key)}:${encode(item, `${pointer}/${escapePointerToken(key)}`, ancestors)}`,
      );
    }
    return `{${parts.join(',')}}`;
  } finally {
    ancestors.delete(value);
  }
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
