import {
  findCommitments,
  isCommitment,
  opens,
  valueAt,
  type Opening,
  type Sha256Bytes,
} from '../../contract/erasable-values.js';
import type { ErasureRecord } from '../../contract/erasure-record.js';
import type { StoredEvent } from '../../contract/store-records.js';
import type { WithheldCount } from './count-withheld.js';
import { fail, pass, type ProofCheck } from './proof-check.js';

/** What a bundle carries about its erasable values (contract/proof-bundle.ts `erasure`). */
export interface CommitmentInput {
  readonly erasures: readonly ErasureRecord[];
  readonly openings: readonly (Opening & { readonly seq: number })[];
}

/**
 * The `commitments` line (docs/evidence-chain.md, "Erasable values"): every opening the bundle carries
 * must open the commitment at its event and path (`commitments.mismatch`, naming the first that does
 * not: a value changed, or an opening for a place that holds no commitment); every commitment without
 * an opening is **withheld by policy** (erased, or exported without values), never missing: the chain
 * hashes the commitment, so it verifies either way. The detail counts both, names the erasures, and
 * counts the copies of values the bundle withholds outside its chain (`outside`: tags in invocations,
 * artifacts and histories, docs/evidence-chain.md "Withheld outside the chain").
 * Pure apart from hashing; never throws.
 */
export function checkCommitments(
  sha256: Sha256Bytes,
  events: readonly StoredEvent[],
  erasure: CommitmentInput | undefined,
  outside?: WithheldCount,
): ProofCheck {
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  let total = 0;
  for (const e of events) total += findCommitments(e).length;
  let opened = 0;
  for (const o of erasure?.openings ?? []) {
    const at = valueAt(bySeq.get(o.seq), o.path);
    if (!isCommitment(at) || !opens(sha256, at.$commit, o))
      return fail(
        'commitments',
        'commitments.mismatch',
        `the value given for event ${o.seq} at ${o.path} does not open ${isCommitment(at) ? 'its commitment' : 'a commitment there'}`,
      );
    opened += 1;
  }
  const erasures = erasure?.erasures ?? [];
  const notes = erasures.map(
    (r) => `erased ${r.values} by ${r.actor} at ${r.erasedAt} (${r.paths.join(', ')})`,
  );
  if (outside !== undefined && outside.copies > 0)
    notes.push(
      `outside the chain ${outside.copies} cop${outside.copies === 1 ? 'y' : 'ies'} of ${outside.values} value(s) withheld by policy (invocations ${outside.invocations}, artifacts ${outside.artifacts}, histories ${outside.histories})`,
    );
  if (total === 0)
    return pass('commitments', 'commitments.ok', ['no erasable values committed', ...notes].join('; '));
  return pass(
    'commitments',
    'commitments.ok',
    [
      `${total} erasable value(s) committed: ${opened} opened and checked, ${total - opened} withheld by policy`,
      ...notes,
    ].join('; '),
  );
}
