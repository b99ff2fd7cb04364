/**
 * Which stored tool results are verified observations: a result that carries an artifact of
 * provenance `verified` (an independent check a trusted executor ran and recorded with the result,
 * whatever its verdict). Its context item is sent with trust `verified` (request packages
 * `context/v4`, docs/context.md); every other tool result stays `untrusted`. Never from content.
 */
import type { EvidenceStore } from '../store/index.js';

/**
 * True when one of `artifactIds` names a stored artifact of provenance `verified` recorded for
 * invocation `seq` of `runId` (an artifact of another run or invocation never counts).
 * @throws the store's errors as thrown.
 */
export async function carriesVerifiedArtifact(
  store: EvidenceStore,
  runId: string,
  seq: number,
  artifactIds: readonly string[],
): Promise<boolean> {
  for (const id of artifactIds) {
    const a = await store.getArtifact(id);
    if (a && a.runId === runId && a.seq === seq && a.provenance === 'verified') return true;
  }
  return false;
}
