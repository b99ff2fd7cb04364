import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { HarnessError } from '../../contract/errors.js';
import {
  CHAIN_HEAD_TOKEN_TYPE,
  DEFAULT_HEAD_INTERVAL,
  MAX_HEAD_INTERVAL,
  type ChainHeadClaims,
} from '../../contract/chain-head.js';

/**
 * A worker's attestation key (worker composition only: it never enters workflow input, history,
 * events or logs; only the heads it signs do). `keyId` names it in the attestation key registry.
 */
export interface ChainHeadSigner {
  readonly keyId: string;
  readonly privateKey: KeyObject;
  /**
   * Sign a head at every multiple of this many events inside a stored batch (`every` heads), 1 to
   * {@link MAX_HEAD_INTERVAL}; default {@link DEFAULT_HEAD_INTERVAL}.
   */
  readonly everyEvents?: number;
}

const b64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

/**
 * Sign a chain head as a compact JWS (EdDSA over Ed25519, the decision tokens' form) with the
 * `harness-chain-head+jwt` type.
 * @throws when the key is not an Ed25519 private key.
 */
export function signChainHead(signer: ChainHeadSigner, claims: ChainHeadClaims): string {
  return signAttestation(signer, CHAIN_HEAD_TOKEN_TYPE, claims);
}

/**
 * Sign `claims` as a compact JWS of type `typ` with the attestation key (chain heads, seal log
 * checkpoints: each type its own, so one is never taken for another).
 * @throws when the key is not an Ed25519 private key.
 */
export function signAttestation(
  signer: Pick<ChainHeadSigner, 'keyId' | 'privateKey'>,
  typ: string,
  claims: object,
): string {
  const header = b64url(JSON.stringify({ alg: 'EdDSA', typ, kid: signer.keyId }));
  const body = b64url(JSON.stringify(claims));
  const signature = sign(null, Buffer.from(`${header}.${body}`, 'ascii'), signer.privateKey);
  return `${header}.${body}.${b64url(signature)}`;
}

/** The raw public key of a signer, base64url (its entry in the attestation key registry). */
export function attestationPublicKey(signer: ChainHeadSigner): string {
  const jwk = createPublicKey(signer.privateKey).export({ format: 'jwk' });
  return String(jwk.x);
}

/**
 * The worker's attestation key from `HARNESS_ATTESTATION_KEY` in `env`: a key file in the form
 * `harness keys create` writes (`{ keyId, privateKeyPem }`, Ed25519). Unset: `undefined` (no heads).
 * `HARNESS_ATTESTATION_EVERY`: the interval of `every` heads (1 to 10,000 events, default 100).
 * @throws HarnessError `attestation.unreadable` when the file cannot be read or is not such a key, or
 *   the interval is not a whole number in its bounds (the worker does not start: a key that was asked
 *   for is never silently dropped).
 */
export function resolveAttestation(env: NodeJS.ProcessEnv): ChainHeadSigner | undefined {
  const path = env.HARNESS_ATTESTATION_KEY;
  if (path === undefined || path === '') return undefined;
  try {
    const file = JSON.parse(readFileSync(path, 'utf8')) as { keyId?: unknown; privateKeyPem?: unknown };
    if (typeof file.keyId !== 'string' || typeof file.privateKeyPem !== 'string')
      throw new Error('no keyId or privateKeyPem');
    const privateKey = createPrivateKey(file.privateKeyPem);
    if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('not an Ed25519 key');
    return { keyId: file.keyId, privateKey, everyEvents: headInterval(env.HARNESS_ATTESTATION_EVERY) };
  } catch (err) {
    throw new HarnessError(
      'attestation.unreadable',
      `HARNESS_ATTESTATION_KEY ${path}: ${(err as Error).message}`,
      { path },
    );
  }
}

/** The interval of `every` heads from its environment value. @throws Error outside 1..MAX_HEAD_INTERVAL. */
function headInterval(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_HEAD_INTERVAL;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_HEAD_INTERVAL)
    throw new Error(
      `HARNESS_ATTESTATION_EVERY must be a whole number from 1 to ${MAX_HEAD_INTERVAL}, not ${value}`,
    );
  return n;
}
