import {
  DEFAULT_HEAD_INTERVAL,
  MAX_HEAD_INTERVAL,
  RUN_SEALED_EVENT,
  type ChainHeadPoint,
  type ChainHeadReceipt,
} from '../../contract/chain-head.js';
import type { EvidenceStore } from '../../contract/evidence-store.js';
import type { StoredEvent } from '../../contract/store-records.js';
import { chainHashAt, latestChainHead } from '../store/index.js';
import { signChainHead, type ChainHeadSigner } from './chain-head-signer.js';

/**
 * The signed heads after a batch was stored (docs/evidence-chain.md, "Commit points"): one at each
 * multiple of the signer's interval inside the batch (`every`), and one at the batch's last event,
 * `seal` when that is the run's `run.sealed` event, else `flush`. `undefined` for an empty batch or an
 * unchained run.
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
  const heads = await intervalHeadsOf(store, signer, stored.slice(0, -1), now);
  const head = await chainHashAt(store, last.runId, last.seq);
  if (head === undefined) return undefined;
  const at = last.type === RUN_SEALED_EVENT ? 'seal' : 'flush';
  const receipt = { head: sign(signer, { run: last.runId, seq: last.seq, head, at }, now) };
  return heads.length > 0 ? { ...receipt, heads } : receipt;
}

/**
 * The interval heads (`every`) of stored events: one at each event whose sequence is a multiple of
 * the signer's interval. The event-append activity signs them for its batch, and so do the model and
 * tool activities for the events that ride with their input, so a run whose events travel with its
 * steps has its heads as often as one that flushes them alone. Events of an unchained run get none.
 * @throws the store's errors (`store.backend_error` for a store that keeps no chain).
 */
export async function intervalHeadsOf(
  store: EvidenceStore,
  signer: ChainHeadSigner,
  stored: readonly StoredEvent[],
  now: Date = new Date(),
): Promise<string[]> {
  const every = Math.min(Math.max(1, signer.everyEvents ?? DEFAULT_HEAD_INTERVAL), MAX_HEAD_INTERVAL);
  const heads: string[] = [];
  for (const e of stored) {
    if (e.seq % every !== 0) continue;
    const head = await chainHashAt(store, e.runId, e.seq);
    if (head !== undefined) heads.push(sign(signer, { run: e.runId, seq: e.seq, head, at: 'every' }, now));
  }
  return heads;
}

/**
 * The signed head of a run's chain as it stands, at a write's commit point (`write.before` once its
 * intent is stored, `write.after` once its result is): the heads of a tool activity's result.
 * `fromSeq`: the lowest sequence the caller knows is stored (the read starts there). `undefined` for
 * a run with no chained event.
 * @throws the store's errors (`store.backend_error` for a store that keeps no chain).
 */
export async function signedHeadNow(
  store: EvidenceStore,
  signer: ChainHeadSigner,
  runId: string,
  point: { readonly at: ChainHeadPoint; readonly call: number; readonly fromSeq?: number },
  now: Date = new Date(),
): Promise<string | undefined> {
  const { at, call } = point;
  const latest = await latestChainHead(store, runId, point.fromSeq);
  if (latest === undefined) return undefined;
  return sign(signer, { run: runId, seq: latest.seq, head: latest.chainHash, at, call }, now);
}

function sign(
  signer: ChainHeadSigner,
  claims: { run: string; seq: number; head: string; at: ChainHeadPoint; call?: number },
  now: Date,
): string {
  return signChainHead(signer, { ...claims, iat: Math.floor(now.getTime() / 1000) });
}
