import type { EvidenceStore } from '../../contract/evidence-store.js';
import type { ChainedEventRow } from './chain-program.js';
import { StoreError } from './errors.js';
import { HarnessError } from '../../contract/errors.js';
import { PROOF_TOO_LARGE, type ProofLimits } from '../../contract/proof-limits.js';
import { SqlEvidenceStore } from './sql-evidence-store.js';

/** Every stored event of a run with its chain links, and when the chain began in this store. */
export interface EventChain {
  readonly rows: readonly ChainedEventRow[];
  /** When this store began chaining events (`undefined`: never migrated, which cannot happen once opened). */
  readonly chainStart: string | undefined;
}

const PAGE = 5000;

/**
 * Read the whole hash chain of a run, page by page, in sequence order; with `limits`, stop as soon as
 * it is over them.
 * @throws `store.backend_error` when `store` is not the harness's own SQL store (an app-supplied store
 *   keeps no chain); HarnessError `proof.too_large` (details `{ limit, max }`) over `limits`; the
 *   store's errors otherwise.
 */
export async function readEventChain(
  store: EvidenceStore,
  runId: string,
  limits?: ProofLimits,
): Promise<EventChain> {
  if (!(store instanceof SqlEvidenceStore))
    throw new StoreError(
      'store.backend_error',
      'this evidence store keeps no hash chain (not the harness SQL store)',
    );
  const rows: ChainedEventRow[] = [];
  let chainStart: string | undefined;
  let bytes = 0;
  for (let after = -1; ;) {
    const page = await store.listEventChain(
      runId,
      after,
      limits ? Math.min(PAGE, limits.maxEvents + 1) : PAGE,
    );
    chainStart = page.chainStart;
    rows.push(...page.rows);
    if (limits) {
      for (const r of page.rows) bytes += r.body.length;
      if (rows.length > limits.maxEvents) throw tooLarge('events', limits.maxEvents, runId);
      if (bytes > limits.maxBytes) throw tooLarge('bytes', limits.maxBytes, runId);
    }
    const last = page.rows.at(-1);
    if (last === undefined || page.rows.length < PAGE) break;
    after = last.seq;
  }
  return { rows, chainStart };
}

/** The refusal of a run over a proof limit: which limit, its value, and where to go instead. */
export function tooLarge(
  limit: 'events' | 'bytes' | 'generations',
  max: number,
  runId: string,
): HarnessError {
  return new HarnessError(
    PROOF_TOO_LARGE,
    `run ${runId} is over the proof limit of ${max} ${limit}: verify it with \`harness verify ${runId}\` or export it with \`harness export ${runId} --bundle <file>\``,
    { limit, max },
  );
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
