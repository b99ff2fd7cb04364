import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { HarnessError } from '../../contract/errors.js';
import type { EvidenceStore } from '../../contract/evidence-store.js';
import { RUN_SEALED_EVENT } from '../../contract/chain-head.js';
import { SealLogEntrySchema, type SealLogEntry } from '../../contract/seal-log.js';
import { latestChainHead } from '../store/index.js';

/**
 * The seal log's file (docs/evidence-chain.md, "The seal log"): one JSON entry per line, in index
 * order, only ever appended to. A missing file is an empty log.
 * @throws HarnessError `log.corrupt` for a line that is not an entry or an index out of order (the
 *   log is not read on: a log an operator cannot read whole must not be extended).
 */
export function readSealLog(path: string): SealLogEntry[] {
  if (!existsSync(path)) return [];
  const entries: SealLogEntry[] = [];
  const lines = readFileSync(path, 'utf8').split('\n');
  lines.forEach((line, n) => {
    if (line === '' && n === lines.length - 1) return;
    let parsed;
    try {
      parsed = SealLogEntrySchema.safeParse(JSON.parse(line));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success || parsed.data.i !== entries.length)
      throw new HarnessError('log.corrupt', `${path}:${n + 1} is not entry ${entries.length} of a seal log`, {
        line: n + 1,
      });
    entries.push(parsed.data);
  });
  return entries;
}

/**
 * Append the seals of `runIds` not yet in the log at `path`, in the order given. A run that is not
 * sealed (still running, started before `agent-run-seal-v1`, unchained) is skipped and returned in
 * `unsealed`. Not safe against two writers at once: one process keeps a log.
 * @throws as {@link readSealLog}; the store's errors (`store.backend_error` for a store without a chain).
 */
export async function appendSeals(
  path: string,
  store: EvidenceStore,
  runIds: readonly string[],
): Promise<{ appended: SealLogEntry[]; unsealed: string[]; size: number }> {
  const entries = readSealLog(path);
  const logged = new Set(entries.map((e) => e.run));
  const appended: SealLogEntry[] = [];
  const unsealed: string[] = [];
  for (const run of runIds) {
    if (logged.has(run)) continue;
    const seal = await sealOf(store, run);
    if (!seal) {
      unsealed.push(run);
      continue;
    }
    // Checked before it is written: the log never holds a line it could not read back.
    const entry = SealLogEntrySchema.parse({ i: entries.length + appended.length, run, ...seal });
    appendFileSync(path, `${JSON.stringify(entry)}\n`);
    appended.push(entry);
    logged.add(run);
  }
  return { appended, unsealed, size: entries.length + appended.length };
}

/** The run's seal (its `run.sealed` event's sequence and chain hash), if its chain ends with one. */
async function sealOf(
  store: EvidenceStore,
  runId: string,
): Promise<{ seq: number; head: string } | undefined> {
  const latest = await latestChainHead(store, runId);
  if (!latest) return undefined;
  const [last] = await store.listEvents(runId, { afterSeq: latest.seq - 1, limit: 1 });
  return last?.type === RUN_SEALED_EVENT ? { seq: latest.seq, head: latest.chainHash } : undefined;
}
