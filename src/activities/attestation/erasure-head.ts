import { ERASURE_HEAD_TOKEN_TYPE, type ErasureHeadClaims } from '../../contract/erasure-record.js';
import { signAttestation, type ChainHeadSigner } from './chain-head-signer.js';

/**
 * The signer of erasure records (docs/evidence-chain.md, "Erasure"): the attestation key signs each
 * record's hash as a compact JWS (EdDSA over Ed25519, the chain heads' form) with its own `typ`,
 * `harness-erasure-head+jwt`, so an erasure head is never taken for a chain head. The key stays in the
 * erasing process (`harness erase`, `harness serve`); only the signature is stored with the record.
 * The returned function throws when the key is not an Ed25519 private key (the erasure is then not made).
 */
export function erasureHeadSigner(
  signer: Pick<ChainHeadSigner, 'keyId' | 'privateKey'>,
): (claims: ErasureHeadClaims) => string {
  return (claims) => signAttestation(signer, ERASURE_HEAD_TOKEN_TYPE, claims);
}
