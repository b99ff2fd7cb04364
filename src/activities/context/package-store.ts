import { StoreError } from '../store/errors.js';
import type { EvidenceStore } from '../../contract/evidence-store.js';
import type { BlobRef, StoredEvent } from '../../contract/store-records.js';
import type { ContextItem, ContextPackage } from './types.js';

/** Format of a request package stored as an index over chunks of items. */
export const CHUNKED_PACKAGE_FORMAT = 'context-package-chunks/v1';

/**
 * Turns per chunk. A chunk holds the items of the turns opened by calls `16k..16k+15` (the first
 * call's own items are a chunk of their own), so successive calls of a run store the same chunks
 * again for every stretch of turns sent the same way, and the store keeps each once.
 */
export const TURNS_PER_CHUNK = 16;

/** The stored index of a chunked package: the package without its items, and its chunks in order. */
interface PackageIndex extends Omit<ContextPackage, 'items'> {
  readonly format: typeof CHUNKED_PACKAGE_FORMAT;
  readonly chunks: readonly { readonly ref: string; readonly items: number }[];
}

/** Where packages are written: the evidence store's content-addressed blobs. */
export type PackageWriter = Pick<EvidenceStore, 'putIndexedBlobs'>;

/** Where packages are read from. */
export interface PackageReader {
  getBlob(ref: string): Promise<unknown>;
}

/**
 * Stores a request package as chunks of its items plus an index (content-addressed blobs; the
 * index names each chunk by digest, so its own digest covers every item). A long run's successive
 * packages share most chunks, and the store keeps each chunk once: a call with a full window adds
 * only the chunks that changed (the newest turns, and the stretches where turns were compacted or
 * cut), not the whole window again. `turnOf` is {@link RequestPackagePlan.turnOf}. The chunks, the
 * index and `events` (the run's events the model activity brought; `provisional` for a local
 * activity's, EvidenceStore.putIndexedBlobs) are one transaction.
 * @returns the index's reference: {@link loadRequestPackage} gives back `pkg` exactly.
 * @throws the store's errors (then nothing is stored, the events neither).
 */
export async function storeRequestPackage(
  store: PackageWriter,
  pkg: ContextPackage,
  turnOf: readonly number[],
  events: readonly StoredEvent[] = [],
  o: { readonly provisional?: boolean } = {},
): Promise<BlobRef> {
  if (turnOf.length !== pkg.items.length)
    throw new RangeError(`turnOf has ${turnOf.length} entries for ${pkg.items.length} items`);
  const chunks: ContextItem[][] = [];
  let key: number | undefined;
  pkg.items.forEach((item, i) => {
    const k = turnOf[i] === 0 ? -1 : Math.floor(turnOf[i]! / TURNS_PER_CHUNK);
    if (k !== key || chunks.length === 0) chunks.push([]);
    key = k;
    chunks.at(-1)!.push(item);
  });
  const { items: _items, ...rest } = pkg;
  return store.putIndexedBlobs(
    chunks.map((items) => ({ items })),
    (refs): PackageIndex => ({
      ...rest,
      format: CHUNKED_PACKAGE_FORMAT,
      chunks: refs.map((r, i) => ({ ref: r.ref, items: chunks[i]!.length })),
    }),
    events,
    o,
  );
}

const isChunkEntry = (v: unknown): v is PackageIndex['chunks'][number] =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { ref?: unknown }).ref === 'string' &&
  Number.isInteger((v as { items?: unknown }).items);

const isIndex = (v: unknown): v is PackageIndex =>
  typeof v === 'object' && v !== null && (v as { format?: unknown }).format === CHUNKED_PACKAGE_FORMAT;

/**
 * The request package stored under `ref`: a chunked one reassembled, or one stored whole (packages
 * from before the chunks) as it is. Every blob read is checked against its digest by the store.
 * @throws `store.invalid_record` when the index or a chunk does not have the shape written, or a
 *   chunk does not hold the number of items its index names; the store's errors (`store.not_found`,
 *   `store.digest_mismatch`, ...).
 */
export async function loadRequestPackage(store: PackageReader, ref: string): Promise<ContextPackage> {
  const stored = await store.getBlob(ref);
  if (!isIndex(stored)) return stored as ContextPackage;
  const list: unknown = stored.chunks;
  const entries = Array.isArray(list) ? (list as unknown[]).filter(isChunkEntry) : [];
  if (!Array.isArray(list) || entries.length !== list.length)
    throw new StoreError('store.invalid_record', `request package ${ref} has no valid chunk list`, { ref });
  const chunks = await Promise.all(entries.map((c) => store.getBlob(c.ref)));
  const items: ContextItem[] = [];
  chunks.forEach((chunk, i) => {
    const got = (chunk as { items?: unknown } | null)?.items;
    if (!Array.isArray(got) || got.length !== entries[i]!.items)
      throw new StoreError(
        'store.invalid_record',
        `chunk ${i} of request package ${ref} does not hold the ${entries[i]!.items} items its index names`,
        { ref, chunk: i },
      );
    items.push(...(got as ContextItem[]));
  });
  const { format: _format, chunks: _chunks, ...rest } = stored;
  return { ...rest, items };
}
