import type { EvidenceStore } from '../../contract/evidence-store.js';
import type { ChainedEventRow } from './chain-program.js';
import { StoreError } from './errors.js';
import { SqlEvidenceStore } from './sql-evidence-store.js';

/** Every stored event of a run with its chain links, and when the chain began in this store. */
export interface EventChain {
  readonly rows: readonly ChainedEventRow[];
  /** When this store began chaining events (`undefined`: never migrated, which cannot happen once opened). */
  readonly chainStart: string | undefined;
}

const PAGE = 5000;

/**
 * Read the whole hash chain of a run, page by page, in sequence order.
 * @throws `store.backend_error` when `store` is not the harness's own SQL store (an app-supplied store
 *   keeps no chain); the store's errors otherwise.
 */
export async function readEventChain(store: EvidenceStore, runId: string): Promise<EventChain> {
  if (!(store instanceof SqlEvidenceStore))
    throw new StoreError(
      'store.backend_error',
      'this evidence store keeps no hash chain (not the harness SQL store)',
    );
  const rows: ChainedEventRow[] = [];
  let chainStart: string | undefined;
  for (let after = -1; ;) {
    const page = await store.listEventChain(runId, after, PAGE);
    chainStart = page.chainStart;
    rows.push(...page.rows);
    const last = page.rows.at(-1);
    if (last === undefined || page.rows.length < PAGE) break;
    after = last.seq;
  }
  return { rows, chainStart };
}

/**
 * The chain hash of the run's event `seq` (`undefined` when it is not stored, or the run is unchained).
 * @throws as {@link readEventChain}.
 */
export async function chainHashAt(
  store: EvidenceStore,
  runId: string,
  seq: number,
): Promise<string | undefined> {
  if (!(store instanceof SqlEvidenceStore))
    throw new StoreError(
      'store.backend_error',
      'this evidence store keeps no hash chain (not the harness SQL store)',
    );
  const row = (await store.listEventChain(runId, seq - 1, 1)).rows[0];
  return row?.seq === seq ? (row.chainHash ?? undefined) : undefined;
}

/**
 * The run's latest chained event (its sequence and chain hash), reading from `fromSeq` on (the caller's
 * lowest sequence it knows is stored; default: the whole chain). `undefined` when none is stored or the
 * run is unchained.
 * @throws as {@link readEventChain}.
 */
export async function latestChainHead(
  store: EvidenceStore,
  runId: string,
  fromSeq = 0,
): Promise<{ readonly seq: number; readonly chainHash: string } | undefined> {
  if (!(store instanceof SqlEvidenceStore))
    throw new StoreError(
      'store.backend_error',
      'this evidence store keeps no hash chain (not the harness SQL store)',
    );
  let last: ChainedEventRow | undefined;
  for (let after = fromSeq - 1; ;) {
    const page = await store.listEventChain(runId, after, PAGE);
    last = page.rows.at(-1) ?? last;
    if (page.rows.length < PAGE || last === undefined) break;
    after = last.seq;
  }
  return last?.chainHash ? { seq: last.seq, chainHash: last.chainHash } : undefined;
}
