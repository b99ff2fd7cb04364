import { generateKeyPairSync } from 'node:crypto';
import {
  attestationPublicKey,
  type ChainHeadSigner,
} from '../../src/activities/attestation/chain-head-signer.js';
import type { AttestationRegistry } from '../../src/contract/chain-head.js';

/** A fresh worker attestation key and the registry entry that verifies it (valid from an hour ago). */
export function testAttestation(keyId = 'worker-test-1'): {
  signer: ChainHeadSigner;
  registry: AttestationRegistry;
} {
  const { privateKey } = generateKeyPairSync('ed25519');
  const signer = { keyId, privateKey };
  const notBefore = new Date(Date.now() - 3_600_000).toISOString();
  return {
    signer,
    registry: { version: 1, keys: [{ keyId, publicKey: attestationPublicKey(signer), notBefore }] },
  };
}
