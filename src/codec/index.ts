/**
 * Payload encryption (docs/security.md): an AES-256-GCM payload codec with rotating keys from a file or
 * an environment variable, the data converter workers, clients and replays use with it, and the codec
 * server for the Web UI. Node only (node:crypto); the workflow sandbox never runs a codec.
 */
export { CODEC_ERROR_CODES, CodecError, type CodecErrorCode } from './errors.js';
export { CodecKeyRing, CodecKeysSchema, CODEC_KEY_BYTES, type CodecKeysFile } from './codec-keys.js';
export {
  EncryptionCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  isEncryptedPayload,
} from './encryption-codec.js';
export {
  CODEC_KEYS_ENV,
  CODEC_KEYS_FILE_ENV,
  codecKeysFromEnv,
  loadCodecKeys,
  describePayloadCodec,
  payloadCodecFromEnv,
} from './codec-from-env.js';
export { harnessDataConverter } from './data-converter.js';
export { decodeHistoryPayloads, payloadsOf } from './history-payloads.js';
export {
  DEFAULT_CODEC_SERVER_PORT,
  startCodecServer,
  type CodecServer,
  type CodecServerOptions,
} from './codec-server.js';
