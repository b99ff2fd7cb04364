import type { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { decodeHistoryPayloads } from '../../codec/history-payloads.js';
import { erasureOf, readEventChain } from '../store/index.js';
import { tooLarge } from '../store/event-chain-reader.js';
import type { ProofLimits } from '../../contract/proof-limits.js';
import type { EvidenceStore } from '../../contract/evidence-store.js';
import { PROOF_BUNDLE_FORMAT, type ProofBundle } from '../../contract/proof-bundle.js';
import type { AttestationRegistry } from '../../contract/chain-head.js';
import { redactProofBundle } from './redact-proof-bundle.js';

/** How a bundle is collected. */
export interface CollectOptions {
  /**
   * Carry the openings (salt and value) of the erasable values the store still holds, and every other
   * copy of them as recorded: a bundle for the verifier at hand, never one to hand over by default.
   * A run with an erasure is withheld outside its chain all the same (its erased values stay gone).
   */
  readonly withValues?: boolean;
  /** Decode the histories' payloads with this codec before anything is withheld (`harness export --decode`). */
  readonly codec?: PayloadCodec;
}

/**
 * Gather a run's proof bundle (contract/proof-bundle.ts) from its evidence store and, when `client` is
 * given and Temporal still has the workflow, its history (and those of its earlier generations when it
 * continued as new), with the attestation key registry its signed
 * heads need (`attestation`). A history Temporal no longer has is `null`
 * (the verifier reports it); any other Temporal error propagates. With `limits` (the run service),
 * a run over them is refused before the rest of it is read: the events as the chain is read, the
 * history by the size Temporal reports before it is fetched.
 * The bundle carries the run's erasures, and the openings of its erasable values only with
 * `o.withValues`. Without it, or when the run had an erasure, every copy of an erasable value outside
 * the chain is withheld (`redactProofBundle`, docs/evidence-chain.md "Withheld outside the chain"):
 * the store's invocations and artifacts, the histories' payloads (`json/plain`; a codec's are opaque
 * unless `o.codec` decodes them), search attributes and memo.
 * @throws the store's errors (`store.backend_error` for a store without a chain); HarnessError
 *   `proof.too_large` (details `{ limit, max }`) over `limits`.
 */
export async function collectProofBundle(
  store: EvidenceStore,
  client: Client | undefined,
  runId: string,
  attestation: AttestationRegistry | null = null,
  now: Date = new Date(),
  limits?: ProofLimits,
  o: CollectOptions = {},
): Promise<ProofBundle> {
  const chain = await readEventChain(store, runId, limits);
  const erasure = erasureOf(store);
  const erasures = await erasure.erasures(runId);
  const stored = await erasure.openings(runId);
  const openings = o.withValues === true ? stored : [];
  const invocations = await store.listInvocations(runId);
  const artifacts = await store.listArtifacts(runId);
  if (limits) {
    const bytes = chain.rows.reduce((n, r) => n + r.body.length, 0);
    if (bytes + JSON.stringify([invocations, artifacts]).length > limits.maxBytes)
      throw tooLarge('bytes', limits.maxBytes, runId);
  }
  // A run the store does not know is not asked of Temporal (the caller reports it as not found).
  const histories =
    client && chain.rows.length > 0 ? await fetchHistories(client, runId, limits, o.codec) : null;
  const bundle: ProofBundle = {
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
    artifacts,
    history: histories?.latest ?? null,
    ...(histories && histories.earlier.length > 0 ? { earlierHistories: histories.earlier } : {}),
    attestation,
    erasure: { erasures, openings, withValues: o.withValues === true },
  };
  if (o.withValues === true && erasures.length === 0) return bundle;
  return redactProofBundle(
    bundle,
    stored.map((s) => parseOr(s.value)),
  );
}

/** An opening's value (canonical JSON text), or the text itself when it is not JSON. */
function parseOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Most generations of one run a bundle holds (a 10,000-step run had 25). */
export const MAX_PROOF_GENERATIONS = 1_000;

/**
 * The run's latest history and, when it continued as new, those of its earlier generations (oldest
 * first), found by each generation's `continuedExecutionRunId`. `null` when Temporal no longer has the
 * run; an earlier generation it no longer has ends the walk (the verifier compares what there is).
 * @throws HarnessError `proof.too_large` over `limits` (all histories' bytes together, and more than
 *   {@link MAX_PROOF_GENERATIONS} generations); Temporal's other errors.
 */
async function fetchHistories(
  client: Client,
  runId: string,
  limits: ProofLimits | undefined,
  codec: PayloadCodec | undefined,
): Promise<{ latest: Record<string, unknown>; earlier: Record<string, unknown>[] } | null> {
  let handle = client.workflow.getHandle(runId);
  let history;
  try {
    if (limits) {
      const { historySize } = await handle.describe();
      if (historySize !== undefined && historySize > limits.maxBytes)
        throw tooLarge('bytes', limits.maxBytes, runId);
    }
    history = await handle.fetchHistory();
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
  const plain = async (h: FetchedHistory) => historyToJSON(codec ? await decodeHistoryPayloads(h, codec) : h);
  const latest = await plain(history);
  let bytes = latest.length;
  const earlier: Record<string, unknown>[] = [];
  for (let prev = continuedFrom(history); prev !== undefined; prev = continuedFrom(history)) {
    if (earlier.length >= MAX_PROOF_GENERATIONS) throw tooLarge('generations', MAX_PROOF_GENERATIONS, runId);
    handle = client.workflow.getHandle(runId, prev);
    try {
      history = await handle.fetchHistory();
    } catch (err) {
      if (isNotFound(err)) break;
      throw err;
    }
    const text = await plain(history);
    bytes += text.length;
    if (limits && bytes > limits.maxBytes) throw tooLarge('bytes', limits.maxBytes, runId);
    earlier.unshift(JSON.parse(text) as Record<string, unknown>);
  }
  return { latest: JSON.parse(latest) as Record<string, unknown>, earlier };
}

type FetchedHistory = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;

/** The run id of the generation this history continued, if it continued one. */
function continuedFrom(history: FetchedHistory): string | undefined {
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  return started?.continuedExecutionRunId || undefined;
}

function isNotFound(err: unknown): boolean {
  return (err as { name?: string }).name === 'WorkflowNotFoundError';
}
