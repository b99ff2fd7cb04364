import { sha256Hex } from '../../contract/sha256.js';
import { canonicalJson } from '../tools/canonical-json.js';
import type { AgentEvent, DataClassification } from './agent-event.js';
import type { RunVersions } from './run-state.js';

/**
 * Events in transit from the workflow to an activity (the outbox), in a compact form: the envelope
 * fields every event of a run shares (run, thread, trace, pinned versions) are sent once per batch,
 * not once per event. This keeps history bytes per step small; the activity restores the full
 * AgentEvent envelope before storing it, so what is stored is identical.
 */
export interface PackedEvents {
  readonly run: RunHeader | null;
  readonly items: readonly PackedEvent[];
}

/** The envelope fields every event of one execution shares. */
export interface RunHeader {
  readonly runId: string;
  readonly threadId: string;
  readonly versions: RunVersions;
  /** The events' trace id when it is not the run id (tracing on); absent: the run id. */
  readonly traceId?: string;
}

export interface PackedEvent {
  readonly q: number;
  readonly t: string;
  readonly at: string;
  readonly s: string | null;
  readonly a: string | null;
  readonly p: string;
  readonly c: DataClassification;
  readonly d: Readonly<Record<string, unknown>>;
}

export const NO_EVENTS: PackedEvents = { run: null, items: [] };

/** The header of a batch: the envelope fields of its first event. */
function headerOf(first: AgentEvent): RunHeader {
  return {
    runId: first.runId,
    threadId: first.threadId,
    versions: first.versions,
    ...(first.traceId !== first.runId ? { traceId: first.traceId } : {}),
  };
}

/** Pack a batch of one run's events. */
export function packEvents(events: readonly AgentEvent[]): PackedEvents {
  const first = events[0];
  if (!first) return NO_EVENTS;
  return {
    run: headerOf(first),
    items: events.map((e) => ({
      q: e.sequence,
      t: e.type,
      at: e.occurredAt,
      s: e.stepId,
      a: e.attemptId,
      p: e.producer,
      c: e.dataClassification,
      d: e.data,
    })),
  };
}

/** Restore full envelopes (inverse of {@link packEvents}). */
export function unpackEvents(packed: PackedEvents): AgentEvent[] {
  const run = packed.run;
  if (!run) return [];
  return packed.items.map((i) => ({
    schemaVersion: '1',
    eventId: `${run.runId}:${i.q}`,
    traceId: run.traceId ?? run.runId,
    runId: run.runId,
    threadId: run.threadId,
    stepId: i.s,
    attemptId: i.a,
    sequence: i.q,
    type: i.t,
    occurredAt: i.at,
    producer: i.p,
    data: i.d,
    dataClassification: i.c,
    versions: run.versions,
  }));
}

/** An activity input whose outbox events travel packed (either form). */
export type WithPackedEvents<T extends { readonly events: readonly AgentEvent[] }> = Omit<T, 'events'> & {
  readonly events: PackedEvents | PackedEventsByRef;
};

/** Replace an input's events with their packed form. */
export function withPackedEvents<T extends { readonly events: readonly AgentEvent[] }>(
  input: T,
): WithPackedEvents<T> {
  return { ...input, events: packEvents(input.events) };
}

/**
 * The form the `…V2` activities take (`callModelV2`, `runToolV2`): the run header by reference. A
 * step's batches share one header, so after an activity that carried it has completed (its worker
 * stored it in the evidence store as a blob) the header is named by its blob reference alone, about
 * 380 bytes less history per activity. Items leave out what the previous item or the defaults say.
 * The activity restores exactly the {@link PackedEvents} of the same events (src/worker/activities/
 * store-events.ts), so what is stored is identical. Only activities of those names receive this form:
 * a worker of an older release has no such activity and fails the task (retryably), so it never
 * reads a batch it would not understand.
 */
export interface PackedEventsByRef {
  /** The header's blob reference, `blob://sha256:<hex of its canonical JSON>` (see {@link headerRef}). */
  readonly header: string;
  /** The header itself, sent until an activity that carried it has completed in this execution. */
  readonly run?: RunHeader;
  readonly items: readonly CompactEvent[];
}

/** A {@link PackedEvent} with `at` left out when it equals the previous item's, `s`/`a` when null. */
export interface CompactEvent {
  readonly q: number;
  readonly t: string;
  readonly at?: string;
  readonly s?: string;
  readonly a?: string;
  readonly p: string;
  readonly c: DataClassification;
  readonly d: Readonly<Record<string, unknown>>;
}

/** The blob reference of a header: the evidence store's address of its canonical JSON. */
export function headerRef(run: RunHeader): string {
  return headerRefOfText(canonicalJson(run));
}

/** {@link headerRef} of a header's canonical JSON text. */
export function headerRefOfText(canonical: string): string {
  return `blob://sha256:${sha256Hex(canonical)}`;
}

/** True for the form by reference. */
export function isPackedByRef(packed: PackedEvents | PackedEventsByRef): packed is PackedEventsByRef {
  return 'header' in packed;
}

/**
 * Pack a batch by header reference. `stored` tells whether the header is known to be in the
 * evidence store (an activity that carried it completed); when not, it travels along. An empty batch
 * has no header (`header: ''`).
 */
export function packEventsByRef(
  events: readonly AgentEvent[],
  refOf: (run: RunHeader) => string,
  stored: (ref: string) => boolean,
): PackedEventsByRef {
  const first = events[0];
  if (!first) return { header: '', items: [] };
  const run = headerOf(first);
  const header = refOf(run);
  let at: string | undefined;
  const items = events.map((e): CompactEvent => {
    const item: CompactEvent = {
      q: e.sequence,
      t: e.type,
      ...(e.occurredAt !== at ? { at: e.occurredAt } : {}),
      ...(e.stepId !== null ? { s: e.stepId } : {}),
      ...(e.attemptId !== null ? { a: e.attemptId } : {}),
      p: e.producer,
      c: e.dataClassification,
      d: e.data,
    };
    at = e.occurredAt;
    return item;
  });
  return { header, ...(stored(header) ? {} : { run }), items };
}

/**
 * The {@link PackedEvents} of a batch packed by reference, given its header (inverse of
 * {@link packEventsByRef}).
 * @throws Error when the first item has no `at` (a malformed batch).
 */
export function expandCompactEvents(run: RunHeader, items: readonly CompactEvent[]): PackedEvents {
  let at: string | undefined;
  return {
    run,
    items: items.map((i) => {
      at = i.at ?? at;
      if (at === undefined) throw new Error(`event ${i.q} of the batch has no time`);
      return { q: i.q, t: i.t, at, s: i.s ?? null, a: i.a ?? null, p: i.p, c: i.c, d: i.d };
    }),
  };
}
