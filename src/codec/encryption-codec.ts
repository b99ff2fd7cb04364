import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { open, seal } from './aes-gcm.js';
import type { CodecKeyRing } from './codec-keys.js';
import { CodecError } from './errors.js';

const ProtoPayload = proto.temporal.api.common.v1.Payload;

/** The `encoding` of an encrypted payload (the value the Temporal samples and the Web UI know). */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata key naming the key that encrypted a payload. */
export const KEY_ID_METADATA = 'encryption-key-id';

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** Is this payload one the codec wrote? */
export function isEncryptedPayload(p: Payload): boolean {
  const enc = p.metadata?.[METADATA_ENCODING_KEY];
  return enc !== undefined && enc !== null && fromUtf8.decode(enc) === ENCRYPTED_ENCODING;
}

/**
 * A Temporal payload codec that encrypts every payload with AES-256-GCM (docs/security.md). The whole
 * original payload (its metadata and data, serialized as `temporal.api.common.v1.Payload`) is the
 * plaintext, so the encoding of the value is hidden too; the result carries only
 * `encoding: binary/encrypted` and `encryption-key-id: <primary key id>` in clear. A random 12-byte IV
 * per payload.
 *
 * Decoding picks the key by the payload's key id, so payloads written under a retired key read as long
 * as the key ring holds it, and passes payloads that are not encrypted through unchanged (runs started
 * before the codec was turned on still read; no integrity claim is made for them).
 *
 * Runs outside the workflow sandbox: in the worker (around activations and activity tasks), in clients,
 * in the codec server.
 */
export class EncryptionCodec implements PayloadCodec {
  constructor(readonly keys: CodecKeyRing) {}

  encode(payloads: Payload[]): Promise<Payload[]> {
    const keyId = this.keys.primaryId;
    const key = this.keys.keyOf(keyId)!;
    return Promise.resolve(
      payloads.map((p) => ({
        metadata: {
          [METADATA_ENCODING_KEY]: utf8.encode(ENCRYPTED_ENCODING),
          [KEY_ID_METADATA]: utf8.encode(keyId),
        },
        data: seal(key, ProtoPayload.encode(p).finish()),
      })),
    );
  }

  /**
   * @throws CodecError `codec.unknown_key` for a key id the ring does not hold, `codec.decrypt_failed`
   *   for a payload without key id or data, or one that fails authentication.
   */
  decode(payloads: Payload[]): Promise<Payload[]> {
    // A throw in the executor rejects the promise.
    return new Promise((resolve) => resolve(payloads.map((p) => this.decodeOne(p))));
  }

  private decodeOne(p: Payload): Payload {
    if (!isEncryptedPayload(p)) return p;
    const idBytes = p.metadata?.[KEY_ID_METADATA];
    if (!idBytes || idBytes.byteLength === 0)
      throw new CodecError('codec.decrypt_failed', `an encrypted payload has no ${KEY_ID_METADATA}`);
    const keyId = fromUtf8.decode(idBytes).slice(0, 128);
    const key = this.keys.keyOf(keyId);
    if (!key)
      throw new CodecError(
        'codec.unknown_key',
        `a payload is encrypted with key id ${JSON.stringify(keyId)}, which the codec keys (${this.keys.source}) do not hold (they hold ${this.keys.keyIds.join(', ')}); add that key to decrypt it`,
        { keyId, keyIds: this.keys.keyIds },
      );
    if (!p.data)
      throw new CodecError('codec.decrypt_failed', `an encrypted payload (key ${keyId}) has no data`, {
        keyId,
      });
    let plain: Buffer;
    try {
      plain = open(key, p.data);
    } catch {
      throw new CodecError(
        'codec.decrypt_failed',
        `a payload encrypted with key ${keyId} does not decrypt: it was altered, or another key was stored under that id`,
        { keyId },
      );
    }
    return ProtoPayload.decode(plain);
  }
}
