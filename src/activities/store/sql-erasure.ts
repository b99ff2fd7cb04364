import type { Opening } from '../../contract/erasable-values.js';
import {
  ErasureRequestSchema,
  type ErasureRecord,
  type ErasureRequest,
} from '../../contract/erasure-record.js';
import { parseRecord } from './codec.js';
import { listOpeningsProgram } from './erasable-program.js';
import { eraseProgram, listErasuresProgram, type SignErasureHead } from './erasure-program.js';
import type { SqlExecutor } from './sql.js';

/**
 * Crypto-shredding on the evidence store's database (docs/evidence-chain.md, "Erasure"): erase a run's
 * erasable values, read its erasures and the openings still stored. Obtained with `erasureOf(store)` (store-erasure.ts).
 */
export class SqlErasure {
  constructor(private readonly executor: SqlExecutor) {}

  /**
   * Erase what `request` names (erasure-program.ts), each run's record chained to its previous one and,
   * with `sign` (the erasing process's attestation key, e.g. `signErasureHead`), signed; then, on
   * SQLite, checkpoint the write-ahead log so
   * the erased bytes leave it (the file zeroes deleted content: `secure_delete`). Best effort: a
   * checkpoint another connection holds up finishes at a later one.
   * @returns one record per run that had values to erase (none: nothing matched; nothing written).
   * @throws StoreError `store.invalid_record` for a request outside its schema (nothing erased);
   *   HarnessError `erasure.not_found`, `erasure.run_active`, `erasure.conflict` (another erasure of the
   *   run committed while this one ran: nothing erased, send it again); the store's errors.
   */
  async erase(request: ErasureRequest, sign?: SignErasureHead): Promise<ErasureRecord[]> {
    const req = parseRecord(ErasureRequestSchema, request, 'erasure request');
    const records = await this.executor.transaction(() => eraseProgram(req, sign));
    if (records.length > 0) await this.executor.compact?.();
    return records;
  }

  /** Every erasure of a run, in order (empty: never erased). */
  async erasures(runId: string): Promise<ErasureRecord[]> {
    return this.executor.snapshot(() => listErasuresProgram(runId));
  }

  /** The openings (salt and value) still stored for a run's commitments, by sequence and path. */
  async openings(runId: string): Promise<(Opening & { readonly seq: number })[]> {
    return this.executor.snapshot(() => listOpeningsProgram(runId));
  }
}
