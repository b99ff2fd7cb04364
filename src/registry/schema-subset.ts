import type { JsonSchema } from '../contract/tool.js';
import {
  CanonicalJsonError,
  canonicalJson,
  escapePointerToken,
  isPlainObject,
  utf8ByteLength,
} from '../contract/canonical-json.js';
import {
  SchemaInvalidError,
  SchemaNotClosedError,
  SchemaTooLargeError,
  SchemaUnsupportedError,
} from './errors.js';
import { SUPPORTED_FORMATS, isSupportedFormat } from './formats.js';

/** Size limits of a parameter schema. */
export const SCHEMA_LIMITS = {
  /** Bytes of the schema's canonical JSON (UTF-8). */
  maxBytes: 16 * 1024,
  /** Nesting depth: the root schema is depth 1, each `properties` or `items` level adds one. */
  maxDepth: 8,
  /** Total number of entries of all `properties` maps in the schema. */
  maxProperties: 128,
} as const;

/** The JSON types a schema's `type` may name (one type per schema; no type unions). */
export const SUPPORTED_SCHEMA_TYPES = [
  'object',
  'string',
  'number',
  'integer',
  'boolean',
  'array',
  'null',
] as const;
type SchemaType = (typeof SUPPORTED_SCHEMA_TYPES)[number];

const ANY_TYPE_KEYWORDS = ['type', 'description', 'title', 'enum', 'const', 'default', 'examples'] as const;
const TYPE_KEYWORDS: Readonly<Record<SchemaType, readonly string[]>> = {
  object: ['properties', 'required', 'additionalProperties'],
  array: ['items', 'minItems', 'maxItems', 'uniqueItems'],
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  boolean: [],
  null: [],
};

/** Every keyword of the supported subset; anything else is rejected with `registry.schema_unsupported`. */
export const SUPPORTED_SCHEMA_KEYWORDS: readonly string[] = [
  ...ANY_TYPE_KEYWORDS,
  ...new Set(Object.values(TYPE_KEYWORDS).flat()),
];

/** Longest `pattern` accepted, in characters. */
export const MAX_PATTERN_LENGTH = 512;

/**
 * Checks that `schema` is a closed JSON object schema inside the supported subset and limits
 * (see docs/extending.md). Pure: no I/O, no Node builtins; safe in the workflow sandbox.
 *
 * Checks run in a fixed order so the same schema always fails with the same error: JSON encodability
 * and byte size, then a depth-first walk in sorted key order (root shape, keywords, values, depth),
 * then the total property count.
 *
 * @param tool Name used in error messages.
 * @throws {SchemaTooLargeError} `registry.schema_too_large` over a {@link SCHEMA_LIMITS} limit.
 * @throws {SchemaNotClosedError} `registry.schema_not_closed` when the root is not an object schema, or
 *   an object schema lacks `additionalProperties: false`, or an array schema lacks `items`.
 * @throws {SchemaUnsupportedError} `registry.schema_unsupported` for a keyword outside the subset, a
 *   keyword on a type it does not apply to, a type union, tuple `items` or an unsupported format.
 * @throws {SchemaInvalidError} `registry.schema_invalid` for a malformed keyword value.
 */
export function checkToolSchema(tool: string, schema: unknown): asserts schema is JsonSchema {
  let encoded: string;
  try {
    encoded = canonicalJson(schema);
  } catch (err) {
    if (err instanceof CanonicalJsonError) {
      throw new SchemaInvalidError(tool, '', String(err.details.pointer), String(err.details.reason));
    }
    throw err;
  }
  const bytes = utf8ByteLength(encoded);
  if (bytes > SCHEMA_LIMITS.maxBytes)
    throw new SchemaTooLargeError(tool, 'bytes', bytes, SCHEMA_LIMITS.maxBytes);
  if (!isPlainObject(schema) || schema.type !== 'object') {
    throw new SchemaNotClosedError(tool, '', 'the root must be an object schema with type "object"');
  }
  const walker = new SchemaWalker(tool);
  walker.check(schema, '', 1);
  if (walker.propertyCount > SCHEMA_LIMITS.maxProperties) {
    throw new SchemaTooLargeError(tool, 'properties', walker.propertyCount, SCHEMA_LIMITS.maxProperties);
  }
}

class SchemaWalker {
  propertyCount = 0;

  constructor(private readonly tool: string) {}

  check(node: unknown, pointer: string, depth: number): void {
    if (depth > SCHEMA_LIMITS.maxDepth)
      throw new SchemaTooLargeError(this.tool, 'depth', depth, SCHEMA_LIMITS.maxDepth);
    if (!isPlainObject(node)) throw this.invalid('', pointer, 'a schema must be a JSON object');
    const keys = Object.keys(node).sort();
    const unsupported = keys.find((key) => !SUPPORTED_SCHEMA_KEYWORDS.includes(key));
    if (unsupported !== undefined) {
      const at = `${pointer}/${escapePointerToken(unsupported)}`;
      throw new SchemaUnsupportedError(this.tool, unsupported, at, 'not in the supported JSON Schema subset');
    }
    const type = this.checkType(node, pointer);
    const allowed = new Set<string>([
      ...ANY_TYPE_KEYWORDS,
      ...(type === undefined ? [] : TYPE_KEYWORDS[type]),
    ]);
    const misplaced = keys.find((key) => !allowed.has(key));
    if (misplaced !== undefined) {
      const owner = SUPPORTED_SCHEMA_TYPES.find((t) => TYPE_KEYWORDS[t].includes(misplaced)) ?? 'other';
      const at = `${pointer}/${escapePointerToken(misplaced)}`;
      throw new SchemaUnsupportedError(
        this.tool,
        misplaced,
        at,
        `applies to ${owner} schemas, not ${type ?? 'untyped'} schemas`,
      );
    }
    this.checkAnnotations(node, pointer);
    if (type === 'object') this.checkObject(node, pointer, depth);
    else if (type === 'array') this.checkArray(node, pointer, depth);
    else if (type === 'string') this.checkString(node, pointer);
    else if (type === 'number' || type === 'integer') this.checkNumber(node, pointer);
  }

  private checkType(node: Record<string, unknown>, pointer: string): SchemaType | undefined {
    const type = node.type;
    if (type === undefined) {
      if ('enum' in node || 'const' in node) return undefined;
      throw this.invalid('type', `${pointer}/type`, 'every schema needs a type (or an enum or const)');
    }
    if (Array.isArray(type))
      throw new SchemaUnsupportedError(
        this.tool,
        'type',
        `${pointer}/type`,
        'type unions are not supported; use one type',
      );
    if (typeof type !== 'string' || !(SUPPORTED_SCHEMA_TYPES as readonly string[]).includes(type)) {
      throw this.invalid('type', `${pointer}/type`, `expected one of ${SUPPORTED_SCHEMA_TYPES.join(', ')}`);
    }
    return type as SchemaType;
  }

  private checkAnnotations(node: Record<string, unknown>, pointer: string): void {
    for (const key of ['description', 'title'] as const) {
      if (key in node && typeof node[key] !== 'string')
        throw this.invalid(key, `${pointer}/${key}`, 'must be a string');
    }
    if ('examples' in node && !Array.isArray(node.examples))
      throw this.invalid('examples', `${pointer}/examples`, 'must be an array');
    if ('enum' in node) {
      const values = node.enum;
      if (!Array.isArray(values) || values.length === 0)
        throw this.invalid('enum', `${pointer}/enum`, 'must be a non-empty array');
      const seen = new Set(values.map((v) => canonicalJson(v)));
      if (seen.size !== values.length) throw this.invalid('enum', `${pointer}/enum`, 'values must be unique');
    }
  }

  private checkObject(node: Record<string, unknown>, pointer: string, depth: number): void {
    if (node.additionalProperties !== false) {
      throw new SchemaNotClosedError(this.tool, pointer, 'object schemas need "additionalProperties": false');
    }
    const properties = node.properties ?? {};
    if (!isPlainObject(properties))
      throw this.invalid('properties', `${pointer}/properties`, 'must be an object of schemas');
    const names = Object.keys(properties).sort();
    this.propertyCount += names.length;
    for (const name of names) {
      if (name === '')
        throw this.invalid('properties', `${pointer}/properties`, 'property names must not be empty');
      this.check(properties[name], `${pointer}/properties/${escapePointerToken(name)}`, depth + 1);
    }
    if ('required' in node) {
      const required = node.required;
      if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) {
        throw this.invalid('required', `${pointer}/required`, 'must be an array of property names');
      }
      if (new Set(required).size !== required.length)
        throw this.invalid('required', `${pointer}/required`, 'names must be unique');
      const missing = required.find((r) => !Object.prototype.hasOwnProperty.call(properties, r));
      if (missing !== undefined) {
        throw this.invalid(
          'required',
          `${pointer}/required`,
          `'${missing}' is required but not declared in properties`,
        );
      }
    }
  }

  private checkArray(node: Record<string, unknown>, pointer: string, depth: number): void {
    if (!('items' in node))
      throw new SchemaNotClosedError(this.tool, pointer, 'array schemas need an items schema');
    if (Array.isArray(node.items)) {
      throw new SchemaUnsupportedError(
        this.tool,
        'items',
        `${pointer}/items`,
        'tuple form (an array of schemas) is not supported',
      );
    }
    this.checkBounds(node, pointer, 'minItems', 'maxItems');
    if ('uniqueItems' in node && typeof node.uniqueItems !== 'boolean') {
      throw this.invalid('uniqueItems', `${pointer}/uniqueItems`, 'must be a boolean');
    }
    this.check(node.items, `${pointer}/items`, depth + 1);
  }

  private checkString(node: Record<string, unknown>, pointer: string): void {
    this.checkBounds(node, pointer, 'minLength', 'maxLength');
    if ('pattern' in node) {
      const pattern = node.pattern;
      if (typeof pattern !== 'string' || pattern.length > MAX_PATTERN_LENGTH) {
        throw this.invalid(
          'pattern',
          `${pointer}/pattern`,
          `must be a string of at most ${MAX_PATTERN_LENGTH} characters`,
        );
      }
      try {
        new RegExp(pattern, 'u');
      } catch {
        throw this.invalid('pattern', `${pointer}/pattern`, 'not a valid regular expression (unicode mode)');
      }
    }
    if ('format' in node) {
      const format = node.format;
      if (typeof format !== 'string') throw this.invalid('format', `${pointer}/format`, 'must be a string');
      if (!isSupportedFormat(format)) {
        throw new SchemaUnsupportedError(
          this.tool,
          'format',
          `${pointer}/format`,
          `format '${format}' is not supported; use one of ${SUPPORTED_FORMATS.join(', ')}`,
        );
      }
    }
  }

  private checkNumber(node: Record<string, unknown>, pointer: string): void {
    for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'] as const) {
      if (key in node && typeof node[key] !== 'number')
        throw this.invalid(key, `${pointer}/${key}`, 'must be a number');
    }
    if ('multipleOf' in node && !((node.multipleOf as number) > 0)) {
      throw this.invalid('multipleOf', `${pointer}/multipleOf`, 'must be greater than 0');
    }
    const low = Math.max(num(node.minimum, -Infinity), num(node.exclusiveMinimum, -Infinity));
    const high = Math.min(num(node.maximum, Infinity), num(node.exclusiveMaximum, Infinity));
    if (low > high)
      throw this.invalid('minimum', `${pointer}/minimum`, 'lower bound is above the upper bound');
  }

  private checkBounds(node: Record<string, unknown>, pointer: string, min: string, max: string): void {
    for (const key of [min, max]) {
      const value = node[key];
      if (key in node && !(typeof value === 'number' && Number.isInteger(value) && value >= 0)) {
        throw this.invalid(key, `${pointer}/${key}`, 'must be a non-negative integer');
      }
    }
    if (num(node[min], 0) > num(node[max], Infinity))
      throw this.invalid(min, `${pointer}/${min}`, `greater than ${max}`);
  }

  private invalid(keyword: string, pointer: string, reason: string): SchemaInvalidError {
    return new SchemaInvalidError(this.tool, keyword, pointer, reason);
  }
}

function num(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}
