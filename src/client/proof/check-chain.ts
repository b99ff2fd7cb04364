import {
  eventHash,
  genesisHash,
  genesisOfFirstEvent,
  type Sha256Hex,
} from '../../contract/evidence-chain.js';
import type { StoredEvent } from '../../contract/store-records.js';
import { fail, pass, type ProofCheck } from './proof-check.js';

/** A stored event as the chain check reads it: its exact canonical bytes and its links. */
export interface ChainLinkRow {
  readonly seq: number;
  readonly body: string;
  readonly prevHash: string | null;
  readonly chainHash: string | null;
}

/**
 * Check a run's hash chain (contract/evidence-chain.ts) from its stored rows, in sequence order:
 * - `chain.empty`: no events stored for the run;
 * - `chain.unchained`: a run recorded before the store chained events (its first event predates
 *   `chainStart`, every link is empty): not verifiable, reported as such, never as passed;
 * - `chain.stripped`: links missing on a run recorded after the chain began, or on some events only;
 * - `chain.event_missing`: the sequence has a gap (an event was dropped; a dropped first event breaks
 *   the genesis link, which binds the first event's id);
 * - `chain.event_altered`: an event's bytes no longer hash to its stored hash (changed after the fact);
 * - `chain.link_broken`: an event's `prev` is not its predecessor's hash (or the first is not the
 *   genesis): events were removed, inserted or relinked, or the stored body's run/ids were changed;
 * - `chain.body_invalid`: a body that is not the canonical JSON of an event of this run;
 * - `chain.ok` with the head (the last event's hash).
 * A database rewritten by someone who recomputes every hash passes this check: the signed heads in
 * the Temporal history are what catch that (docs/evidence-chain.md, "What it cannot stop").
 */
export function checkChain(
  sha256: Sha256Hex,
  runId: string,
  rows: readonly ChainLinkRow[],
  chainStart: string | undefined,
): ProofCheck {
  const first = rows[0];
  if (first === undefined) return fail('chain', 'chain.empty', `no events stored for run ${runId}`);
  const decoded: StoredEvent[] = [];
  for (const row of rows) {
    let event: StoredEvent;
    try {
      event = JSON.parse(row.body) as StoredEvent;
    } catch {
      return fail('chain', 'chain.body_invalid', `event #${row.seq} is not JSON`);
    }
    if (event.runId !== runId || event.seq !== row.seq)
      return fail('chain', 'chain.body_invalid', `event #${row.seq} names run ${event.runId} #${event.seq}`);
    decoded.push(event);
  }
  const unlinked = rows.filter((r) => r.prevHash === null || r.chainHash === null).length;
  if (unlinked === rows.length) {
    const legacy = chainStart === undefined || decoded[0]!.occurredAt < chainStart;
    return legacy
      ? fail('chain', 'chain.unchained', `run ${runId} was recorded before this store chained its events`)
      : fail(
          'chain',
          'chain.stripped',
          `run ${runId} began after the chain did, but none of its events is linked`,
        );
  }
  if (unlinked > 0)
    return fail('chain', 'chain.stripped', `${unlinked} of ${rows.length} events carry no links`);
  for (let i = 1; i < rows.length; i++) {
    const want = rows[i - 1]!.seq + 1;
    if (rows[i]!.seq !== want)
      return fail(
        'chain',
        'chain.event_missing',
        `expected event #${want}, found #${rows[i]!.seq}: an event is missing`,
      );
  }
  let prev = genesisHash(sha256, genesisOfFirstEvent(decoded[0]!));
  for (const row of rows) {
    if (eventHash(sha256, row.body, row.prevHash!) !== row.chainHash)
      return fail(
        'chain',
        'chain.event_altered',
        `event #${row.seq} does not hash to its stored hash: changed after it was recorded`,
      );
    if (row.prevHash !== prev)
      return fail(
        'chain',
        'chain.link_broken',
        row === first
          ? 'the first event does not start from the run genesis'
          : `event #${row.seq} does not link to event #${row.seq - 1}`,
      );
    prev = row.chainHash!;
  }
  return pass('chain', 'chain.ok', `${rows.length} events linked, head ${prev}`);
}
