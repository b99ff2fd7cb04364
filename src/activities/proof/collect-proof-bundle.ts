import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { readEventChain } from '../store/index.js';
import type { EvidenceStore } from '../../contract/evidence-store.js';
import { PROOF_BUNDLE_FORMAT, type ProofBundle } from '../../contract/proof-bundle.js';
import type { AttestationRegistry } from '../../contract/chain-head.js';

/**
 * Gather a run's proof bundle (contract/proof-bundle.ts) from its evidence store and, when `client` is
 * given and Temporal still has the workflow, its history, with the attestation key registry its signed
 * heads need (`attestation`). A history Temporal no longer has is `null`
 * (the verifier reports it); any other Temporal error propagates.
 * @throws the store's errors (`store.backend_error` for a store without a chain).
 */
export async function collectProofBundle(
  store: EvidenceStore,
  client: Client | undefined,
  runId: string,
  attestation: AttestationRegistry | null = null,
  now: Date = new Date(),
): Promise<ProofBundle> {
  const chain = await readEventChain(store, runId);
  const invocations = await store.listInvocations(runId);
  const artifacts = await store.listArtifacts(runId);
  // A run the store does not know is not asked of Temporal (the caller reports it as not found).
  const history = client && chain.rows.length > 0 ? await fetchHistory(client, runId) : null;
  return {
    format: PROOF_BUNDLE_FORMAT,
    runId,
    exportedAt: now.toISOString(),
    chain: {
      chainStart: chain.chainStart ?? null,
      events: chain.rows.map(({ seq, body, prevHash, chainHash }) => ({ seq, body, prevHash, chainHash })),
    },
    invocations: invocations.map(({ runId: r, seq, intents, results }) => ({
      runId: r,
      seq,
      intents,
      results,
    })),
    artifacts: artifacts as unknown as Record<string, unknown>[],
    history,
    attestation,
  };
}

async function fetchHistory(client: Client, runId: string): Promise<Record<string, unknown> | null> {
  try {
    const history = await client.workflow.getHandle(runId).fetchHistory();
    return JSON.parse(historyToJSON(history)) as Record<string, unknown>;
  } catch (err) {
    if ((err as { name?: string }).name === 'WorkflowNotFoundError') return null;
    throw err;
  }
}
