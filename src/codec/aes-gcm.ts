import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** AES-GCM nonce: 12 random bytes per payload (NIST SP 800-38D's recommended size). */
export const IV_BYTES = 12;
/** The GCM authentication tag. */
export const TAG_BYTES = 16;

/**
 * AES-256-GCM with a fresh random IV. Output: `iv (12) || ciphertext || tag (16)`, the layout of the
 * Temporal encryption samples (Go, TypeScript), so their codec servers and ours read each other.
 */
export function seal(key: Buffer, plaintext: Uint8Array): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

/**
 * Open what {@link seal} wrote.
 * @throws Error when the data is too short or fails authentication (tampered, or another key).
 */
export function open(key: Buffer, sealed: Uint8Array): Buffer {
  if (sealed.byteLength < IV_BYTES + TAG_BYTES) throw new Error('ciphertext too short');
  const data = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  const iv = data.subarray(0, IV_BYTES);
  const tag = data.subarray(data.byteLength - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  return Buffer.concat([
    decipher.update(data.subarray(IV_BYTES, data.byteLength - TAG_BYTES)),
    decipher.final(),
  ]);
}
