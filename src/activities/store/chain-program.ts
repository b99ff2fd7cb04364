import { createHash } from 'node:crypto';
import { eventHash, genesisHash, genesisOfFirstEvent } from '../../contract/evidence-chain.js';
import type { StoredEvent } from '../../contract/store-records.js';
import { decodeJson } from './codec.js';
import { exec, rows } from './sql.js';
import type { SqlProgram } from './sql.js';

/** Lowercase hex SHA-256 of a string's UTF-8 bytes (node:crypto). */
export function sha256Text(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** One stored event with its exact canonical bytes and its chain links (`null`: an unchained run). */
export interface ChainedEventRow {
  readonly seq: number;
  readonly body: string;
  readonly prevHash: string | null;
  readonly chainHash: string | null;
  readonly provisional: boolean;
}

/** A page of {@link listEventChainProgram} and when the chain began in the store ({@link chainStartProgram}). */
export interface ChainPage {
  readonly rows: ChainedEventRow[];
  readonly chainStart: string | undefined;
}

interface Row {
  seq: number | string;
  body: string;
  prev_hash: string | null;
  chain_hash: string | null;
  provisional: number | string;
}

/**
 * Link the run's events from sequence `fromSeq` on into its hash chain (contract/evidence-chain.ts):
 * each gets `prev_hash` (the hash of the run's previous stored event, or the genesis when none is
 * stored before it) and `chain_hash`. Called in the transaction that inserted or replaced events, so
 * the chain always covers exactly the stored events: an event inserted before others (a batch stored
 * out of order) or provisional events replaced by a retried workflow task attempt relink every later
 * event; the walk stops at the first event whose links are already what they must be (everything
 * after it was linked from it). A run whose earlier events are unchained (stored before the chain
 * existed) stays unchained: its new events are left `NULL` too, so the verifier says "unchained",
 * never "passed".
 */
export function* rechainProgram(runId: string, fromSeq: number): SqlProgram<void> {
  const before = yield* rows<{ chain_hash: string | null }>(
    'SELECT chain_hash FROM events WHERE run_id = ? AND seq < ? ORDER BY seq DESC LIMIT 1',
    [runId, fromSeq],
  );
  if (before[0] !== undefined && before[0].chain_hash === null) return;
  const later = yield* rows<Row>(
    'SELECT seq, body, prev_hash, chain_hash, provisional FROM events WHERE run_id = ? AND seq >= ? ORDER BY seq',
    [runId, fromSeq],
  );
  if (later[0] === undefined) return;
  let prev =
    before[0]?.chain_hash ??
    genesisHash(sha256Text, genesisOfFirstEvent(decodeJson<StoredEvent>(later[0].body)));
  for (const row of later) {
    const hash = eventHash(sha256Text, row.body, prev);
    if (row.prev_hash === prev && row.chain_hash === hash) return;
    yield* exec('UPDATE events SET prev_hash = ?, chain_hash = ? WHERE run_id = ? AND seq = ?', [
      prev,
      hash,
      runId,
      Number(row.seq),
    ]);
    prev = hash;
  }
}

/** A page of the run's events with their bytes and links, in sequence order (one range scan). */
export function* listEventChainProgram(
  runId: string,
  afterSeq: number,
  limit: number,
): SqlProgram<ChainedEventRow[]> {
  const found = yield* rows<Row>(
    'SELECT seq, body, prev_hash, chain_hash, provisional FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    [runId, afterSeq, limit],
  );
  return found.map((r) => ({
    seq: Number(r.seq),
    body: r.body,
    prevHash: r.prev_hash,
    chainHash: r.chain_hash,
    provisional: Number(r.provisional) === 1,
  }));
}

/** When the chain began in this store: `applied_at` of the `event_chain` migration (found by name). */
export function* chainStartProgram(): SqlProgram<string | undefined> {
  const found = yield* rows<{ applied_at: string }>(
    "SELECT applied_at FROM schema_migrations WHERE name = 'event_chain'",
  );
  return found[0]?.applied_at;
}
