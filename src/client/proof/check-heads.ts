import { createPublicKey, verify } from 'node:crypto';
import {
  ChainHeadClaimsSchema,
  ChainHeadHeaderSchema,
  type AttestationRegistry,
  type ChainHeadClaims,
} from '../../contract/chain-head.js';
import type { ChainLinkRow } from './check-chain.js';
import { fail, pass, type ProofCheck, type ProofInput } from './proof-check.js';

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
    const parts = token.split('.');
    const header = ChainHeadHeaderSchema.safeParse(json(parts[0]));
    const claims = ChainHeadClaimsSchema.safeParse(json(parts[1]));
    if (parts.length !== 3 || !header.success || !claims.success || claims.data.run !== input.runId)
      return fail('heads', 'heads.invalid', 'a signed head is not a chain head of this run');
    const key = registry.keys.find((k) => k.keyId === header.data.kid);
    if (!key)
      return fail('heads', 'heads.unknown_key', `key ${header.data.kid} is not in the attestation registry`);
    if (!withinWindow(key, claims.data))
      return fail(
        'heads',
        'heads.key_not_valid',
        `key ${key.keyId} was not valid when it signed head #${claims.data.seq}`,
      );
    const publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: key.publicKey },
      format: 'jwk',
    });
    const signed = Buffer.from(`${parts[0]}.${parts[1]}`, 'ascii');
    if (!verify(null, signed, publicKey, Buffer.from(parts[2]!, 'base64url')))
      return fail(
        'heads',
        'heads.signature_invalid',
        `head #${claims.data.seq} does not verify with key ${key.keyId}`,
      );
    if (bySeq.get(claims.data.seq) !== claims.data.head)
      return fail(
        'heads',
        'heads.mismatch',
        `the stored chain at #${claims.data.seq} is not the head the worker signed`,
      );
    highest = Math.max(highest, claims.data.seq);
  }
  return pass('heads', 'heads.ok', `${h.heads.length} signed heads match the chain (latest at #${highest})`);
}

function withinWindow(key: AttestationRegistry['keys'][number], claims: ChainHeadClaims): boolean {
  const at = claims.iat * 1000;
  return at >= Date.parse(key.notBefore) && (key.notAfter === undefined || at <= Date.parse(key.notAfter));
}

function json(segment: string | undefined): unknown {
  try {
    return JSON.parse(Buffer.from(segment ?? '', 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
