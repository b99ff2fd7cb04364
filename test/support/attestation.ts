import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/**
 * Writes an attestation's files into `dir` as an operator would keep them: the registry
 * (`HARNESS_ATTESTATION_KEYS`) and the private key file (`HARNESS_ATTESTATION_KEY`, mode 0600) a
 * worker signs chain heads with and `harness erase` signs erasure records with.
 */
export function writeAttestationFiles(
  dir: string,
  attestation: ReturnType<typeof testAttestation>,
): { registryFile: string; keyFile: string } {
  const registryFile = join(dir, 'attestation.json');
  writeFileSync(registryFile, JSON.stringify(attestation.registry));
  const keyFile = join(dir, 'attestation-key.json');
  const privateKeyPem = attestation.signer.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  writeFileSync(keyFile, JSON.stringify({ keyId: attestation.signer.keyId, privateKeyPem }), { mode: 0o600 });
  return { registryFile, keyFile };
}
