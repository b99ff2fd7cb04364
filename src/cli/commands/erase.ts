import { resolveAttestation } from '../../activities/attestation/chain-head-signer.js';
import { erasureHeadSigner } from '../../activities/attestation/erasure-head.js';
import { erasureOf } from '../../activities/store/index.js';
import { ERASURE_NOT_FOUND, ERASURE_RUN_ACTIVE } from '../../activities/store/erasure-program.js';
import { isHarnessError } from '../../contract/errors.js';
import { openCliStore } from '../connect.js';
import { EXIT, notFoundError, refusedError, usageError } from '../errors.js';
import type { Output } from '../output.js';

export interface EraseOptions {
  /** Who asks for the erasure (recorded with it). */
  readonly by: string;
  /** Only values at this path inside the events' data (`/userId`, `/customer/email`). */
  readonly path?: string;
  /** Erase this value wherever a run stored it as an erasable value (across runs without a run id). */
  readonly subject?: string;
  /** Why (recorded with it), e.g. the request's ticket. */
  readonly reason?: string;
}

/**
 * `harness erase [runId] --by <who> [--path <pointer>] [--subject <value>] [--reason <text>]`
 * (docs/evidence-chain.md, "Erasure"): delete the salts and values of a finished run's erasable values
 * (or of every run that stored `--subject`) from the evidence store; the commitments stay in the chain,
 * so `harness verify` still passes, and reads show `[withheld by policy]`. Records who, when, why and
 * which paths in the store's erasure record, chained to the run's previous one and signed with the
 * attestation key `HARNESS_ATTESTATION_KEY` names (unsigned without one: `harness verify` then fails
 * the run's `erasures` line). Does not touch the Temporal history.
 * Exit 2 for a bad request (nothing erased), 3 for a run the store has no events of, 5 for a run not
 * finished yet (nothing erased, of any run); `attestation.unreadable` for a key file that is not an
 * Ed25519 key (nothing erased).
 */
export async function eraseCommand(runId: string | undefined, o: EraseOptions, out: Output): Promise<number> {
  if (runId === undefined && o.subject === undefined)
    throw usageError('name a run id, or a value with --subject <value>');
  const key = resolveAttestation(process.env);
  const store = await openCliStore();
  try {
    const records = await erasureOf(store).erase(
      {
        ...(runId !== undefined ? { runId } : {}),
        ...(o.subject !== undefined ? { subject: o.subject } : {}),
        ...(o.path !== undefined ? { paths: [o.path] } : {}),
        ...(o.reason !== undefined ? { reason: o.reason } : {}),
        actor: o.by,
        at: new Date().toISOString(),
      },
      key ? erasureHeadSigner(key) : undefined,
    );
    out.data({ erased: records });
    if (records.length === 0) out.line('nothing to erase: no stored erasable value matches');
    for (const r of records)
      out.line(
        `erased ${r.values} value(s) of ${r.events} event(s) of run ${r.runId} (${r.paths.join(', ')}), erasure ${r.seq} by ${r.actor}`,
      );
    return EXIT.ok;
  } catch (err) {
    if (!isHarnessError(err)) throw err;
    if (err.code === ERASURE_NOT_FOUND) throw notFoundError(err.message, err.details);
    if (err.code === ERASURE_RUN_ACTIVE) throw refusedError(err.message, err.details);
    if (err.code === 'store.invalid_record') throw usageError(err.message);
    throw err;
  } finally {
    await store.close();
  }
}
