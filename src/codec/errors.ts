import { HarnessError } from '../contract/errors.js';

/**
 * Error codes of the payload codec (docs/security.md). None of them is worth retrying: a key ring
 * that does not validate, a payload encrypted with a key this process does not hold, or a payload
 * that fails authentication stays so until an operator changes the keys.
 */
export const CODEC_ERROR_CODES = [
  /** The key file or variable is unreadable, not JSON or not a valid key ring (the field is named). */
  'codec.keys_invalid',
  /** A payload names a key id the key ring does not hold (the id is named, never a key). */
  'codec.unknown_key',
  /** A payload does not decrypt: tampered, truncated, or another key under the same id. */
  'codec.decrypt_failed',
  /** `harness codec-server` without keys. */
  'codec.not_configured',
] as const;

export type CodecErrorCode = (typeof CODEC_ERROR_CODES)[number];

/** A payload codec failure. Messages and details name key ids, never key material or payload data. */
export class CodecError extends HarnessError {
  declare readonly code: CodecErrorCode;
  constructor(code: CodecErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}
