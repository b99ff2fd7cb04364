import type { AgentEvent, DataClassification } from './agent-event.js';
import type { PackedEventsByRef } from './packed-events-by-ref.js';
import type { RunVersions } from './agent-event.js';

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
export function headerOf(first: AgentEvent): RunHeader {
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

/** An activity input whose outbox events travel packed (the first form). */
export type WithPackedEvents<T extends { readonly events: readonly AgentEvent[] }> = Omit<T, 'events'> & {
  readonly events: PackedEvents;
};

/** An activity input whose outbox events travel by header reference (packed-events-by-ref.ts). */
export type WithPackedEventsByRef<T extends { readonly events: readonly AgentEvent[] }> = Omit<
  T,
  'events'
> & {
  readonly events: PackedEventsByRef;
};

/** Replace an input's events with their packed form. */
export function withPackedEvents<T extends { readonly events: readonly AgentEvent[] }>(
  input: T,
): WithPackedEvents<T> {
  return { ...input, events: packEvents(input.events) };
}
