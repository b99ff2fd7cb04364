import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  type CodecError,
  CodecKeyRing,
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  KEY_ID_METADATA,
  isEncryptedPayload,
} from '../../../src/codec/index.js';
import { keyRing } from './keys.js';

/** The error a promise rejects with (undefined when it resolves). */
async function rejection(p: Promise<unknown>): Promise<CodecError> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e as CodecError,
  );
}

const text = (b: Uint8Array | null | undefined): string => Buffer.from(b ?? []).toString('utf8');
const secret = { orderId: 'ORD-1001', customerId: 'C1001', amount: '129.00 EUR', note: 'ship it' };

describe('EncryptionCodec (AES-256-GCM)', () => {
  const ring = keyRing('k1');
  const codec = new EncryptionCodec(CodecKeyRing.from(ring));

  it('round-trips payloads of every encoding; the ciphertext hides value and encoding', async () => {
    const plain = [
      defaultPayloadConverter.toPayload(secret),
      defaultPayloadConverter.toPayload('model text: refund approved for ORD-1001'),
      defaultPayloadConverter.toPayload(new Uint8Array([1, 2, 3])),
      defaultPayloadConverter.toPayload(undefined),
    ];
    const encoded = await codec.encode(plain);
    expect(encoded).toHaveLength(4);
    for (const p of encoded) {
      expect(Object.keys(p.metadata!).sort()).toEqual(['encoding', KEY_ID_METADATA]);
      expect(text(p.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
      expect(text(p.metadata![KEY_ID_METADATA])).toBe('k1');
      expect(isEncryptedPayload(p)).toBe(true);
      const raw = text(p.data);
      for (const s of ['ORD-1001', 'C1001', '129.00', 'json/plain', 'binary/null', 'refund approved'])
        expect(raw).not.toContain(s);
    }
    const decoded = await codec.decode(encoded);
    expect(defaultPayloadConverter.fromPayload(decoded[0]!)).toEqual(secret);
    expect(defaultPayloadConverter.fromPayload(decoded[1]!)).toBe('model text: refund approved for ORD-1001');
    expect([...defaultPayloadConverter.fromPayload<Uint8Array>(decoded[2]!)]).toEqual([1, 2, 3]);
    expect(defaultPayloadConverter.fromPayload(decoded[3]!)).toBeUndefined();
    expect(await codec.encode([])).toEqual([]);
  });

  it('uses a fresh IV per payload: the same value encrypts differently', async () => {
    const p = defaultPayloadConverter.toPayload(secret);
    const [a, b] = await codec.encode([p, p]);
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
    expect(Buffer.from(a!.data!).subarray(0, 12).equals(Buffer.from(b!.data!).subarray(0, 12))).toBe(false);
  });

  it('rotation: the new primary key encrypts, the old key still decrypts what it wrote', async () => {
    const [k0, k1] = [keyRing('k0').keys[0]!, keyRing('k1').keys[0]!];
    const before = new EncryptionCodec(CodecKeyRing.from({ keys: [k0] }));
    const after = new EncryptionCodec(CodecKeyRing.from({ primary: 'k1', keys: [k1, k0] }));
    const old = await before.encode([defaultPayloadConverter.toPayload('written under k0')]);
    const fresh = await after.encode([defaultPayloadConverter.toPayload('written under k1')]);
    expect(text(fresh[0]!.metadata![KEY_ID_METADATA])).toBe('k1');
    const [a, b] = await after.decode([...old, ...fresh]);
    expect(defaultPayloadConverter.fromPayload(a!)).toBe('written under k0');
    expect(defaultPayloadConverter.fromPayload(b!)).toBe('written under k1');
    // Retiring k0 too early: its payloads fail, naming the key id.
    const retired = new EncryptionCodec(CodecKeyRing.from({ keys: [k1] }));
    const err = await rejection(retired.decode(old));
    expect(err).toMatchObject({ code: 'codec.unknown_key', details: { keyId: 'k0' } });
    expect(err.message).toContain('"k0"');
  });

  it('an unknown key id fails clearly and never shows a key', async () => {
    const other = keyRing('other');
    const encoded = await new EncryptionCodec(CodecKeyRing.from(other)).encode([
      defaultPayloadConverter.toPayload(secret),
    ]);
    const err = await rejection(codec.decode(encoded));
    expect(err).toMatchObject({ code: 'codec.unknown_key' });
    expect(err.message).toMatch(/key id "other".*hold k1/);
    for (const k of [...ring.keys, ...other.keys])
      expect(`${JSON.stringify(err)} ${err.message} ${err.stack}`).not.toContain(k.key);
  });

  it('tampered ciphertext, a swapped key under the same id, or a cut payload fail authentication', async () => {
    const [p] = await codec.encode([defaultPayloadConverter.toPayload(secret)]);
    const flipped = Buffer.from(p!.data!);
    flipped[20] = flipped[20]! ^ 1;
    await expect(codec.decode([{ ...p, data: flipped }])).rejects.toMatchObject({
      code: 'codec.decrypt_failed',
    });
    await expect(codec.decode([{ ...p, data: Buffer.from(p!.data!).subarray(0, 20) }])).rejects.toMatchObject(
      {
        code: 'codec.decrypt_failed',
      },
    );
    const impostor = new EncryptionCodec(CodecKeyRing.from(keyRing('k1')));
    const swapped = await rejection(impostor.decode([p!]));
    expect(swapped.code).toBe('codec.decrypt_failed');
    expect(swapped.message).toContain('key k1');
    const noId: Payload = { metadata: { encoding: p!.metadata!.encoding! }, data: p!.data! };
    await expect(codec.decode([noId])).rejects.toMatchObject({ code: 'codec.decrypt_failed' });
  });

  it('passes unencrypted payloads through (a run started before the codec still reads)', async () => {
    const plain = [defaultPayloadConverter.toPayload(secret), { metadata: {}, data: new Uint8Array([7]) }];
    expect(await codec.decode(plain)).toEqual(plain);
  });
});
