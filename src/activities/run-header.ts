import { ApplicationFailure } from '@temporalio/activity';
import { isHarnessError } from '../contract/errors.js';
import {
  expandCompactEvents,
  headerDigest,
  isPackedByRef,
  NO_DERIVATION,
  type EventDerivation,
  type PackedEventsByRef,
} from '../contract/packed-events-by-ref.js';
import { NO_EVENTS, type PackedEvents, type RunHeader } from '../contract/packed-events.js';

/** The blob store a header lives in (the evidence store). */
export interface HeaderStore {
  putBlob(data: unknown): Promise<{ readonly ref: string }>;
  getBlob(ref: string): Promise<unknown>;
}

/** Per store, the headers this process has stored in it or read from it, by reference. */
const knownByStore = new WeakMap<HeaderStore, Map<string, RunHeader>>();
/** Most headers kept per store; the oldest go first. A header is ~400 bytes. */
const MAX_KNOWN = 2_000;

function knownIn(store: HeaderStore): Map<string, RunHeader> {
  let known = knownByStore.get(store);
  if (!known) knownByStore.set(store, (known = new Map<string, RunHeader>()));
  return known;
}

function remember(known: Map<string, RunHeader>, ref: string, run: RunHeader): void {
  if (known.size >= MAX_KNOWN) known.delete(known.keys().next().value as string);
  known.set(ref, run);
}

function expand(run: RunHeader, packed: PackedEventsByRef, derive: EventDerivation): PackedEvents {
  try {
    return expandCompactEvents(run, packed.items, derive);
  } catch (err) {
    throw refused('events.invalid_batch', (err as Error).message, packed.header);
  }
}

/** A header read back from the store: the shape {@link RunHeader} promises, else undefined. */
function asHeader(value: unknown): RunHeader | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const ok =
    typeof v.runId === 'string' &&
    typeof v.threadId === 'string' &&
    v.versions !== null &&
    typeof v.versions === 'object' &&
    !Array.isArray(v.versions) &&
    (v.traceId === undefined || typeof v.traceId === 'string');
  return ok ? (value as RunHeader) : undefined;
}

const refused = (type: string, message: string, ref: string): ApplicationFailure =>
  ApplicationFailure.create({ type, message, nonRetryable: true, details: [{ ref: ref.slice(0, 120) }] });

/**
 * The {@link PackedEvents} of a batch in either form. A batch by reference that carries its header
 * stores it (a blob: idempotent) once the whole batch is known to restore, so later batches can name
 * it alone; one that names it alone gets it from this process's memory or the store. `derive` is the
 * receiving activity's (what its input says of the events it left out); `runId` the run the
 * activity serves: a batch by reference whose header names another run is refused.
 *
 * Failure semantics: nothing is stored but the header, and that only for a batch that restores. A
 * header that does not hash to the digest it came with, or names another run, fails
 * `events.header_mismatch`; a named header the store does not hold `events.header_missing`; one of
 * another shape `events.header_invalid`; an item that cannot be completed `events.invalid_batch` (all
 * non-retryable: no retry of the same input can store it; the workflow sends the header again
 * after a failed `events.header_*`). The store's own errors propagate as they are (retryable).
 */
export async function restorePackedEvents(
  store: HeaderStore,
  packed: PackedEvents | PackedEventsByRef,
  derive: EventDerivation = NO_DERIVATION,
  runId?: string,
): Promise<PackedEvents> {
  if (!isPackedByRef(packed)) return packed;
  if (packed.items.length === 0) return NO_EVENTS;
  const known = knownIn(store);
  const ref = `blob://${packed.header}`;
  const run = packed.run ?? (await namedHeader(store, known, ref));
  if (runId !== undefined && run.runId !== runId)
    throw refused('events.header_mismatch', `the batch header names another run than ${runId}`, ref);
  const restored = expand(run, packed, derive);
  if (packed.run) {
    if (headerDigest(packed.run) !== packed.header)
      throw refused('events.header_mismatch', 'the batch header does not match its reference', ref);
    // Always stored when carried (once per execution, as a rule): a store that lost it gets it back.
    const stored = await store.putBlob(packed.run);
    if (stored.ref !== ref)
      throw refused('events.header_mismatch', `the store addressed the header as ${stored.ref}`, ref);
    remember(known, ref, packed.run);
  }
  return restored;
}

/**
 * The header a batch by reference carries or names, checked, nothing stored: for an activity that
 * needs it before the batch is restored (the third step format's defaults, step-input-v3.ts).
 * Undefined for an empty batch.
 *
 * Failure semantics: as {@link restorePackedEvents} for the header (`events.header_mismatch`,
 * `events.header_missing`, `events.header_invalid`, non-retryable; the store's own errors as they
 * are), and `events.invalid_batch` (non-retryable) for a batch without a list of items.
 */
export async function batchHeader(
  store: HeaderStore,
  packed: { readonly header: string; readonly run?: RunHeader; readonly items: readonly unknown[] },
  runId: string,
): Promise<RunHeader | undefined> {
  if (typeof packed !== 'object' || packed === null || !Array.isArray(packed.items))
    throw refused('events.invalid_batch', 'the batch has no list of items', '');
  if (packed.items.length === 0) return undefined;
  const ref = `blob://${packed.header}`;
  if (packed.run && headerDigest(packed.run) !== packed.header)
    throw refused('events.header_mismatch', 'the batch header does not match its reference', ref);
  const run = packed.run ?? (await namedHeader(store, knownIn(store), ref));
  if (run.runId !== runId)
    throw refused('events.header_mismatch', `the batch header names another run than ${runId}`, ref);
  return run;
}

/** A header named by reference: from this process's memory, else the store. */
async function namedHeader(
  store: HeaderStore,
  known: Map<string, RunHeader>,
  ref: string,
): Promise<RunHeader> {
  const remembered = known.get(ref);
  if (remembered) return remembered;
  let value: unknown;
  try {
    value = await store.getBlob(ref);
  } catch (err) {
    if (isHarnessError(err, 'store.not_found') || isHarnessError(err, 'store.invalid_ref'))
      throw refused('events.header_missing', `the evidence store holds no run header ${ref}`, ref);
    throw err;
  }
  const run = asHeader(value);
  if (!run) throw refused('events.header_invalid', `the blob ${ref} is not a run header`, ref);
  remember(known, ref, run);
  return run;
}
