import type { ChainHeadReceipt } from '../../contract/chain-head.js';
import type { EvidenceStore } from '../../contract/evidence-store.js';
import type { StoredEvent } from '../../contract/store-records.js';
import { chainHashAt } from '../store/index.js';
import { signChainHead, type ChainHeadSigner } from './chain-head-signer.js';

/**
 * The signed head after a batch was stored: the chain hash of the batch's last event, signed by the
 * worker's attestation key. `undefined` for an empty batch or an unchained run.
 * @throws the store's errors (`store.backend_error` for a store that keeps no chain).
 */
export async function signedHeadOf(
  store: EvidenceStore,
  signer: ChainHeadSigner,
  stored: readonly StoredEvent[],
  now: Date = new Date(),
): Promise<ChainHeadReceipt | undefined> {
  const last = stored.at(-1);
  if (last === undefined) return undefined;
  const head = await chainHashAt(store, last.runId, last.seq);
  if (head === undefined) return undefined;
  const iat = Math.floor(now.getTime() / 1000);
  return { head: signChainHead(signer, { run: last.runId, seq: last.seq, head, iat }) };
}
