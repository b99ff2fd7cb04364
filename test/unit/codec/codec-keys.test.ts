import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  CodecKeyRing,
  codecKeysFromEnv,
  describePayloadCodec,
  EncryptionCodec,
  loadCodecKeys,
  payloadCodecFromEnv,
} from '../../../src/codec/index.js';
import { keyRing, newKey } from './keys.js';

/** The error `fn` throws, checked to be `codec.keys_invalid` and to hold none of `keys`. */
function keysError(fn: () => unknown, keys: string[] = []): Error & { code: string } {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err, 'expected an error').toBeInstanceOf(Error);
  const e = err as Error & { code: string };
  expect(e.code).toBe('codec.keys_invalid');
  const shown = `${e.message} ${JSON.stringify(e)} ${inspect(e)}`;
  for (const k of keys) {
    expect(shown).not.toContain(k);
    expect(shown).not.toContain(k.slice(0, 12));
  }
  return e;
}

describe('codec keys', () => {
  it('a key ring: the primary encrypts, every key decrypts; ids only in JSON, inspect and strings', () => {
    const value = keyRing('k-2026', 'k-2025');
    const ring = CodecKeyRing.from(value, 'test');
    expect(ring.primaryId).toBe('k-2026');
    expect(ring.keyIds).toEqual(['k-2026', 'k-2025']);
    expect(ring.keyOf('k-2025')?.byteLength).toBe(32);
    const shown = `${JSON.stringify(ring)} ${inspect(ring)} ${String(ring)} ${inspect(new EncryptionCodec(ring))}`;
    for (const k of value.keys) expect(shown).not.toContain(k.key);
    expect(shown).toContain('k-2025');
    // one key needs no primary; base64url works too
    const url = Buffer.from(newKey(), 'base64').toString('base64url');
    expect(CodecKeyRing.from({ keys: [{ id: 'only', key: url }] }).primaryId).toBe('only');
  });

  it.each([
    [
      'a short key',
      (k: string) => ({ keys: [{ id: 'k1', key: k.slice(0, 40) + '=' }] }),
      /keys\.0\.key: expected 32 random bytes/,
    ],
    ['a long key', (k: string) => ({ keys: [{ id: 'k1', key: k + k }] }), /keys\.0\.key/],
    [
      'a key that is not base64',
      (k: string) => ({ keys: [{ id: 'k1', key: `${k.slice(0, 42)}!=` }] }),
      /keys\.0\.key/,
    ],
    ['a bad key id', (k: string) => ({ keys: [{ id: 'has space', key: k }] }), /keys\.0\.id: a key id is/],
    [
      'duplicate ids',
      (k: string) => ({
        primary: 'a',
        keys: [
          { id: 'a', key: k },
          { id: 'a', key: k },
        ],
      }),
      /keys\.1\.id: duplicate key id a/,
    ],
    [
      'no primary with two keys',
      (k: string) => ({
        keys: [
          { id: 'a', key: k },
          { id: 'b', key: k },
        ],
      }),
      /primary: name the key that encrypts/,
    ],
    [
      'a primary that names no key',
      (k: string) => ({ primary: 'c', keys: [{ id: 'a', key: k }] }),
      /primary: names no key/,
    ],
    ['no keys', () => ({ keys: [] }), /keys: at least one key/],
    ['an unknown field', (k: string) => ({ keys: [{ id: 'a', key: k, alg: 'x' }] }), /keys\.0/],
  ])('%s fails with codec.keys_invalid naming the field, never the key', (_, make, message) => {
    const k = newKey();
    expect(keysError(() => CodecKeyRing.from(make(k), 'test'), [k]).message).toMatch(message);
  });

  it('JSON that does not parse is refused without quoting it', () => {
    const k = newKey();
    const e = keysError(
      () => CodecKeyRing.parse(`{"keys":[{"id":"k1","key":"${k}"}]`, 'HARNESS_CODEC_KEYS'),
      [k],
    );
    expect(e.message).toBe('codec keys HARNESS_CODEC_KEYS: not valid JSON');
  });

  it('from the environment: a file, or the JSON inline; off when neither is set', () => {
    const dir = mkdtempSync(join(tmpdir(), 'codec-keys-'));
    const value = keyRing('file-key');
    const file = join(dir, 'keys.json');
    writeFileSync(file, JSON.stringify(value), { mode: 0o600 });
    expect(codecKeysFromEnv({})).toBeUndefined();
    expect(payloadCodecFromEnv({ HARNESS_CODEC_KEYS: '', HARNESS_CODEC_KEYS_FILE: '' })).toBeUndefined();
    expect(loadCodecKeys(file).primaryId).toBe('file-key');
    expect(codecKeysFromEnv({ HARNESS_CODEC_KEYS_FILE: file })?.source).toBe(file);
    const inline = codecKeysFromEnv({ HARNESS_CODEC_KEYS: JSON.stringify(keyRing('env-key')) });
    expect(inline?.primaryId).toBe('env-key');
    expect(inline?.source).toBe('HARNESS_CODEC_KEYS');
    expect(describePayloadCodec(payloadCodecFromEnv({ HARNESS_CODEC_KEYS_FILE: file }))).toBe(
      'payloads encrypted (key file-key)',
    );
    expect(describePayloadCodec(undefined)).toBe('payloads not encrypted');
    // both set: refused rather than guessing which wins
    expect(
      keysError(() => codecKeysFromEnv({ HARNESS_CODEC_KEYS_FILE: file, HARNESS_CODEC_KEYS: '{}' })).message,
    ).toMatch(/not both/);
    // a missing file names the path and the errno only
    expect(
      keysError(() => codecKeysFromEnv({ HARNESS_CODEC_KEYS_FILE: join(dir, 'none.json') })).message,
    ).toMatch(/cannot read the codec keys file .*none\.json \(ENOENT\)/);
    // a bad file names the file and the field
    const bad = join(dir, 'bad.json');
    const k = newKey();
    writeFileSync(bad, JSON.stringify({ keys: [{ id: 'k1', key: k.slice(2) }] }));
    expect(keysError(() => codecKeysFromEnv({ HARNESS_CODEC_KEYS_FILE: bad }), [k]).message).toMatch(
      new RegExp(`codec keys ${bad.replace(/[/.]/g, '\\$&')}: keys\\.0\\.key`),
    );
  });
});
