import { readFileSync } from 'node:fs';
import type { PayloadCodec } from '@temporalio/common';
import { CodecKeyRing, MAX_CODEC_KEYS_BYTES } from './codec-keys.js';
import { EncryptionCodec } from './encryption-codec.js';
import { CodecError } from './errors.js';

/** The variables that turn the payload codec on. */
export const CODEC_KEYS_FILE_ENV = 'HARNESS_CODEC_KEYS_FILE';
export const CODEC_KEYS_ENV = 'HARNESS_CODEC_KEYS';

/**
 * Read a key ring file (JSON, see {@link CodecKeyRing}).
 * @throws CodecError `codec.keys_invalid` when the file cannot be read, is too large or is not valid.
 */
export function loadCodecKeys(path: string): CodecKeyRing {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CodecError('codec.keys_invalid', `cannot read the codec keys file ${path} (${code})`, { path });
  }
  if (Buffer.byteLength(text) > MAX_CODEC_KEYS_BYTES)
    throw new CodecError(
      'codec.keys_invalid',
      `the codec keys file ${path} is over ${MAX_CODEC_KEYS_BYTES} bytes`,
      {
        path,
      },
    );
  return CodecKeyRing.parse(text, path);
}

/**
 * The key ring of the environment: `HARNESS_CODEC_KEYS_FILE` (a path) or `HARNESS_CODEC_KEYS` (the same
 * JSON inline); undefined when neither is set (the codec is off). An empty value counts as unset.
 * @throws CodecError `codec.keys_invalid` when both are set, or the keys do not validate.
 */
export function codecKeysFromEnv(env: NodeJS.ProcessEnv = process.env): CodecKeyRing | undefined {
  const file = env[CODEC_KEYS_FILE_ENV] || undefined;
  const inline = env[CODEC_KEYS_ENV] || undefined;
  if (file !== undefined && inline !== undefined)
    throw new CodecError('codec.keys_invalid', `set ${CODEC_KEYS_FILE_ENV} or ${CODEC_KEYS_ENV}, not both`);
  if (file !== undefined) return loadCodecKeys(file);
  if (inline !== undefined) return CodecKeyRing.parse(inline, CODEC_KEYS_ENV);
  return undefined;
}

/**
 * The payload codec of the environment (docs/security.md): an {@link EncryptionCodec} over
 * {@link codecKeysFromEnv}, or undefined when the codec is off. Workers, clients, every `harness` verb,
 * `npm start` and the evaluation call this, so one variable turns encryption on for all of them.
 * @throws CodecError `codec.keys_invalid`.
 */
export function payloadCodecFromEnv(env: NodeJS.ProcessEnv = process.env): EncryptionCodec | undefined {
  const keys = codecKeysFromEnv(env);
  return keys ? new EncryptionCodec(keys) : undefined;
}

/** How a process reports its codec at start (key ids only), e.g. `payloads encrypted (key k2; also reads k1)`. */
export function describePayloadCodec(codec: PayloadCodec | undefined): string {
  if (!codec) return 'payloads not encrypted';
  if (!(codec instanceof EncryptionCodec)) return 'payloads encoded by a custom codec';
  const [primary, ...others] = codec.keys.keyIds;
  return `payloads encrypted (key ${primary}${others.length ? `; also reads ${others.join(', ')}` : ''})`;
}
