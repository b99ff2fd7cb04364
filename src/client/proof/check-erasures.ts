import type { AttestationRegistry } from '../../contract/chain-head.js';
import { findCommitments } from '../../contract/erasable-values.js';
import {
  ERASURE_HEAD_TOKEN_TYPE,
  ErasureHeadClaimsSchema,
  erasureHash,
  type ErasureRecord,
} from '../../contract/erasure-record.js';
import type { Sha256Hex } from '../../contract/evidence-chain.js';
import type { StoredEvent } from '../../contract/store-records.js';
import { fail, pass, type ProofCheck } from './proof-check.js';
import { verifyAttestationJws } from './verify-attestation-jws.js';

/** What a bundle carries about its erasures (contract/proof-bundle.ts `erasure`). */
export interface ErasureInput {
  readonly erasures: readonly ErasureRecord[];
  readonly openings: readonly unknown[];
  /** The openings are every one the store still held (`harness verify <runId>`, `--with-values`). */
  readonly withValues?: boolean;
}

/**
 * The `erasures` line (docs/evidence-chain.md, "Erasure"): the run's erasure records form a chain
 * from its first, each signed with an attestation key of the registry, and account for the values the
 * chain withholds. Fails with, for the first record that does not hold:
 * - `erasures.unchained`: a record stored before erasure records were chained (migration
 *   `erasure_chain`): never passed;
 * - `erasures.invalid`: a record of another run;
 * - `erasures.reordered` / `erasures.record_missing`: numbers out of order, or a gap (a deleted record);
 * - `erasures.record_altered`: a record that does not hash to its `hash` (edited);
 * - `erasures.link_broken`: a `prev` that is not the previous record's hash (one deleted or reordered
 *   and renumbered, or its hash recomputed after an edit);
 * - `erasures.unsigned`, `erasures.no_registry`, `erasures.unknown_key`, `erasures.key_not_valid`,
 *   `erasures.signature_invalid`, `erasures.head_mismatch` (a head that is not an EdDSA erasure head
 *   of this record: the signed head is what catches a record edited and rehashed by someone without
 *   the key); the head checked by verify-attestation-jws.ts;
 * - `erasures.count_mismatch`: the records erased more values than the chain withholds;
 * - `erasures.unrecorded`: with every stored opening at hand (`withValues`), values withheld that no
 *   record erased (the newest records deleted, or values deleted behind the store's back).
 * No records and nothing withheld unaccounted: `erasures.ok`. Pure apart from hashing and signature
 * checks; never throws.
 */
export function checkErasures(
  sha256: Sha256Hex,
  runId: string,
  events: readonly StoredEvent[],
  erasure: ErasureInput | undefined,
  registry: AttestationRegistry | undefined,
): ProofCheck {
  const records = erasure?.erasures ?? [];
  const out = records.findIndex((r, i) => i > 0 && r.seq <= records[i - 1]!.seq);
  if (out > 0)
    return fail(
      'erasures',
      'erasures.reordered',
      `erasure #${records[out]!.seq} comes after #${records[out - 1]!.seq}`,
    );
  let prev: string | null = null;
  for (const [i, r] of records.entries()) {
    const no = `erasure #${r.seq}`;
    if (r.runId !== runId) return fail('erasures', 'erasures.invalid', `${no} is of run ${r.runId}`);
    if (r.prev === undefined || r.hash === undefined)
      return fail('erasures', 'erasures.unchained', `${no} was recorded before erasures were chained`);
    if (r.seq !== i + 1) return fail('erasures', 'erasures.record_missing', `erasure #${i + 1} is missing`);
    if (erasureHash(sha256, r) !== r.hash)
      return fail('erasures', 'erasures.record_altered', `${no} does not hash to its recorded hash`);
    if (r.prev !== prev)
      return fail('erasures', 'erasures.link_broken', `${no} does not link to the erasure before it`);
    prev = r.hash;
  }
  for (const r of records) {
    const refused = headRefusal(r, registry);
    if (refused) return fail('erasures', refused.code, `erasure #${r.seq}: ${refused.detail}`);
  }
  let total = 0;
  for (const e of events) total += findCommitments(e).length;
  const withheld = total - (erasure?.openings.length ?? 0);
  const erased = records.reduce((n, r) => n + r.values, 0);
  if (erased > withheld)
    return fail(
      'erasures',
      'erasures.count_mismatch',
      `the erasures erased ${erased} value(s), the chain withholds ${withheld}`,
    );
  if (erasure?.withValues === true && withheld > erased)
    return fail(
      'erasures',
      'erasures.unrecorded',
      `${withheld - erased} withheld value(s) that no erasure record erased`,
    );
  if (records.length === 0) return pass('erasures', 'erasures.ok', 'no erasures');
  return pass(
    'erasures',
    'erasures.ok',
    `${records.length} erasure(s) chained and signed, ${erased} value(s) erased${erasure?.withValues === true ? ', every withheld value accounted for' : ''}`,
  );
}

/** Why a record's signed head does not hold, or undefined when it does. */
function headRefusal(
  r: ErasureRecord,
  registry: AttestationRegistry | undefined,
): { code: string; detail: string } | undefined {
  if (r.head === undefined)
    return { code: 'erasures.unsigned', detail: 'not signed (the erasing process had no attestation key)' };
  if (!registry) return { code: 'erasures.no_registry', detail: 'no attestation keys to check its head' };
  const verified = verifyAttestationJws(r.head, registry, {
    typ: ERASURE_HEAD_TOKEN_TYPE,
    claims: ErasureHeadClaimsSchema,
    binds: (c) => c.run === r.runId && c.seq === r.seq && c.head === r.hash,
  });
  if (verified.ok) return undefined;
  switch (verified.reason) {
    case 'malformed':
      return {
        code: 'erasures.head_mismatch',
        detail: 'its signed head is not an erasure head of this record',
      };
    case 'unknown_key':
      return { code: 'erasures.unknown_key', detail: `key ${verified.kid} is not in the registry` };
    case 'key_not_valid':
      return { code: 'erasures.key_not_valid', detail: `key ${verified.kid} was not valid when it signed` };
    case 'signature_invalid':
      return {
        code: 'erasures.signature_invalid',
        detail: `its head does not verify with key ${verified.kid}`,
      };
  }
}
