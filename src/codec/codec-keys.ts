import { inspect } from 'node:util';
import { z } from 'zod';
import { CodecError } from './errors.js';

/** Bytes of an AES-256 key. */
export const CODEC_KEY_BYTES = 32;
/** Most keys a key ring holds (the current one and the retired ones still needed to read old runs). */
export const MAX_CODEC_KEYS = 32;
/** Largest key file read (bytes). */
export const MAX_CODEC_KEYS_BYTES = 64 * 1024;

/** Key ids go into every payload's metadata (`encryption-key-id`) in clear text: no secrets in them. */
const KeyIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, 'a key id is 1-64 characters: letters, digits and . _ : -');

const BASE64 = /^[A-Za-z0-9+/]{43}=$/;
const BASE64URL = /^[A-Za-z0-9_-]{43}$/;

/** 32 bytes in base64 (44 characters, e.g. `openssl rand -base64 32`) or base64url (43). */
const KeyMaterialSchema = z
  .string()
  .refine(
    (s) => BASE64.test(s) || BASE64URL.test(s),
    `expected ${CODEC_KEY_BYTES} random bytes in base64 (44 characters, as \`openssl rand -base64 32\` prints) or base64url (43)`,
  );

/**
 * The key ring file (`HARNESS_CODEC_KEYS_FILE`) or variable (`HARNESS_CODEC_KEYS`):
 * `{ "primary": "<key id>", "keys": [{ "id": "<key id>", "key": "<32 bytes, base64>" }, ...] }`.
 * `primary` encrypts; every key decrypts. With one key `primary` may be left out.
 */
export const CodecKeysSchema = z
  .object({
    version: z.literal(1).optional(),
    primary: KeyIdSchema.optional(),
    keys: z
      .array(z.object({ id: KeyIdSchema, key: KeyMaterialSchema }).strict())
      .min(1, 'at least one key')
      .max(MAX_CODEC_KEYS, `at most ${MAX_CODEC_KEYS} keys`),
  })
  .strict()
  .superRefine((v, ctx) => {
    const seen = new Set<string>();
    v.keys.forEach((k, i) => {
      if (seen.has(k.id))
        ctx.addIssue({ code: 'custom', path: ['keys', i, 'id'], message: `duplicate key id ${k.id}` });
      seen.add(k.id);
    });
    if (v.primary === undefined && v.keys.length > 1)
      ctx.addIssue({
        code: 'custom',
        path: ['primary'],
        message: 'name the key that encrypts (several keys)',
      });
    if (v.primary !== undefined && !seen.has(v.primary))
      ctx.addIssue({ code: 'custom', path: ['primary'], message: `names no key of keys (${v.primary})` });
  });

export type CodecKeysFile = z.infer<typeof CodecKeysSchema>;

/**
 * The keys of the payload codec: one primary key that encrypts, all keys decrypt (rotation: add the new
 * key as primary, keep the old ones until no run you still need reads them). Key material stays inside:
 * `JSON.stringify`, `util.inspect` and `toString` show key ids only.
 */
export class CodecKeyRing {
  readonly #keys: ReadonlyMap<string, Buffer>;
  /** The id of the key that encrypts. */
  readonly primaryId: string;
  /** Where the keys came from (a file path, `HARNESS_CODEC_KEYS`, `inline`), for messages. */
  readonly source: string;

  private constructor(keys: ReadonlyMap<string, Buffer>, primaryId: string, source: string) {
    this.#keys = keys;
    this.primaryId = primaryId;
    this.source = source;
  }

  /**
   * Validate a key ring value.
   * @throws CodecError `codec.keys_invalid` naming the source and the first bad fields, never a key.
   */
  static from(value: unknown, source = 'inline'): CodecKeyRing {
    const parsed = CodecKeysSchema.safeParse(value);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
      throw new CodecError('codec.keys_invalid', `codec keys ${source}: ${issues.join('; ')}`, {
        source,
        issues,
      });
    }
    const keys = new Map(parsed.data.keys.map((k) => [k.id, Buffer.from(k.key, 'base64')]));
    const primaryId = parsed.data.primary ?? parsed.data.keys[0]!.id;
    return new CodecKeyRing(keys, primaryId, source);
  }

  /**
   * Parse a key ring from JSON text. A parse error says where, never what the text holds.
   * @throws CodecError `codec.keys_invalid`.
   */
  static parse(text: string, source: string): CodecKeyRing {
    if (Buffer.byteLength(text) > MAX_CODEC_KEYS_BYTES)
      throw new CodecError('codec.keys_invalid', `codec keys ${source}: over ${MAX_CODEC_KEYS_BYTES} bytes`, {
        source,
      });
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // The parser's message quotes the text around the error, which may be key material.
      throw new CodecError('codec.keys_invalid', `codec keys ${source}: not valid JSON`, { source });
    }
    return CodecKeyRing.from(value, source);
  }

  /** Every key id, the primary first. */
  get keyIds(): string[] {
    return [this.primaryId, ...[...this.#keys.keys()].filter((id) => id !== this.primaryId)];
  }

  has(keyId: string): boolean {
    return this.#keys.has(keyId);
  }

  /** The raw key of `keyId`, for the cipher only. */
  keyOf(keyId: string): Buffer | undefined {
    return this.#keys.get(keyId);
  }

  toJSON(): { primary: string; keyIds: string[]; source: string } {
    return { primary: this.primaryId, keyIds: this.keyIds, source: this.source };
  }

  toString(): string {
    return `CodecKeyRing(${this.keyIds.join(', ')}; primary ${this.primaryId}; from ${this.source})`;
  }

  [inspect.custom](): string {
    return this.toString();
  }
}
