import { SEAL_LOG_CHECKPOINT_TYPE, type SealLogCheckpointClaims } from '../../contract/seal-log.js';
import { signAttestation, type ChainHeadSigner } from './chain-head-signer.js';

/**
 * A signed checkpoint of the log: its name, size and tree head now, signed with the attestation key.
 * @throws when the key is not an Ed25519 private key.
 */
export function signSealLogCheckpoint(
  signer: Pick<ChainHeadSigner, 'keyId' | 'privateKey'>,
  claims: Omit<SealLogCheckpointClaims, 'iat'>,
  now: Date = new Date(),
): string {
  return signAttestation(signer, SEAL_LOG_CHECKPOINT_TYPE, {
    ...claims,
    iat: Math.floor(now.getTime() / 1000),
  });
}
