import {
  CHAIN_HEAD_TOKEN_TYPE,
  ChainHeadClaimsSchema,
  type AttestationRegistry,
  type ChainHeadClaims,
} from '../../contract/chain-head.js';
import type { ChainLinkRow } from './check-chain.js';
import { fail, pass, type ProofCheck, type ProofInput } from './proof-check.js';
import { verifyAttestationJws, type AttestationJwsRefused } from './verify-attestation-jws.js';

/**
 * The chain agrees with the heads the worker signed into the Temporal history (docs/evidence-chain.md,
 * "Signed chain heads"): a database rewritten without the attestation key no longer matches them.
 * - `heads.unavailable`: no history; `heads.unsigned`: the history holds no signed head (the worker had
 *   no attestation key): the chain is then protected by the history comparisons only;
 * - `heads.no_registry`: heads, but no attestation key registry to check them with;
 * - `heads.invalid`: a head that is not a chain-head JWS for this run;
 * - `heads.unknown_key` / `heads.key_not_valid`: a key not in the registry, or used outside its window;
 * - `heads.signature_invalid`;
 * - `heads.mismatch`: the stored chain's hash at a signed sequence is not the signed one;
 * - `heads.ok`.
 */
export function checkHeads(
  input: ProofInput,
  rows: readonly ChainLinkRow[],
  registry: AttestationRegistry | undefined,
): ProofCheck {
  const h = input.history;
  if (!h) return fail('heads', 'heads.unavailable', 'no Temporal history holds the signed heads');
  if (h.heads.length === 0)
    return fail('heads', 'heads.unsigned', 'the worker signed no chain head for this run');
  if (!registry)
    return fail(
      'heads',
      'heads.no_registry',
      `${h.heads.length} signed heads, but no attestation keys to check them`,
    );
  const bySeq = new Map(rows.map((r) => [r.seq, r.chainHash]));
  let highest = -1;
  for (const token of h.heads) {
    const verified = verifyAttestationJws(token, registry, {
      typ: CHAIN_HEAD_TOKEN_TYPE,
      claims: ChainHeadClaimsSchema,
      binds: (c) => c.run === input.runId,
    });
    if (!verified.ok) return refused(verified);
    const claims = verified.claims;
    if (bySeq.get(claims.seq) !== claims.head)
      return fail(
        'heads',
        'heads.mismatch',
        `the stored chain at #${claims.seq} is not the head the worker signed`,
      );
    highest = Math.max(highest, claims.seq);
  }
  return pass('heads', 'heads.ok', `${h.heads.length} signed heads match the chain (latest at #${highest})`);
}

/** The `heads` line of a head {@link verifyAttestationJws} refused. */
function refused(r: AttestationJwsRefused<ChainHeadClaims>): ProofCheck {
  switch (r.reason) {
    case 'malformed':
      return fail('heads', 'heads.invalid', 'a signed head is not a chain head of this run');
    case 'unknown_key':
      return fail('heads', 'heads.unknown_key', `key ${r.kid} is not in the attestation registry`);
    case 'key_not_valid':
      return fail(
        'heads',
        'heads.key_not_valid',
        `key ${r.key.keyId} was not valid when it signed head #${r.claims.seq}`,
      );
    case 'signature_invalid':
      return fail(
        'heads',
        'heads.signature_invalid',
        `head #${r.claims.seq} does not verify with key ${r.key.keyId}`,
      );
  }
}
