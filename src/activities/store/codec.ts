import type { z } from 'zod';
import { isHarnessError } from '../../contract/errors.js';
import { canonicalJson, utf8ByteLength } from '../../contract/canonical-json.js';
import { StoreError } from './errors.js';

/**
 * Validate an input record against its schema.
 * @throws `store.invalid_record` naming the first issues.
 */
export function parseRecord<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '/'}: ${i.message}`);
  throw new StoreError('store.invalid_record', `invalid ${what}: ${issues.join('; ')}`, { what, issues });
}

/**
 * Canonical JSON of `value`, bounded to `maxBytes` UTF-8 bytes.
 * @throws `store.invalid_record` when the value is not JSON data; `store.payload_too_large` over the bound.
 */
export function encodeJson(value: unknown, maxBytes: number, what: string): string {
  let text: string;
  try {
    text = canonicalJson(value);
  } catch (err) {
    if (isHarnessError(err))
      throw new StoreError('store.invalid_record', `${what} is not JSON: ${err.message}`, { what });
    throw err;
  }
  const bytes = utf8ByteLength(text);
  if (bytes > maxBytes) {
    throw new StoreError(
      'store.payload_too_large',
      `${what} is ${bytes} bytes, over the bound of ${maxBytes}; store it as a blob`,
      {
        what,
        bytes,
        maxBytes,
      },
    );
  }
  return text;
}

/** Parse stored canonical JSON text. */
export function decodeJson<T>(text: string): T {
  return JSON.parse(text) as T;
}

/** `record` without its `recordedAt`: the identity compared on idempotent writes. */
export function withoutRecordedAt<T extends { recordedAt: string }>(record: T): Omit<T, 'recordedAt'> {
  const { recordedAt: _recordedAt, ...rest } = record;
  return rest;
}
