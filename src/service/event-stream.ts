import type { ServerResponse } from 'node:http';
import { envelopesOf, projectPublic, runObligations } from '../client/evidence/public-projection.js';
import type { EvidenceStore, StoredEvent } from '../activities/store/index.js';
import { pageAfter, TERMINAL_EVENT_TYPES, type FeedCursor } from './run-event-feed.js';

export interface EventStreamOptions {
  readonly store: EvidenceStore;
  readonly runId: string;
  /** The run's shared feed (see {@link RunEventFeeds}); the stream releases it when it ends. */
  readonly feed: FeedCursor;
  /** Send events with a sequence above this (from `Last-Event-ID`); -1 for all. */
  readonly afterSeq: number;
  /** `public`: the redacted projection; `internal`: the stored envelopes (operators). */
  readonly view: 'public' | 'internal';
  readonly heartbeatMs: number;
  /** Aborted when the client goes away or the service closes. */
  readonly signal: AbortSignal;
}

/**
 * Write a run's events to `res` as Server-Sent Events until its terminal event, the client leaving,
 * or the workflow closing without one (then an `end` event). Each event's `id` is its sequence, so a
 * client that reconnects with `Last-Event-ID: k` gets k+1 onward: no gap, no duplicate. In the public
 * view an event the projection leaves out (`restricted`) is sent as an `omitted` event under its
 * sequence, so the sequence a client sees has no holes. A comment line is sent every `heartbeatMs`.
 * Events come from the run's shared feed, so N streams of one run cost one store poller. Never
 * throws: a store failure ends the stream with an `error` event (the client reconnects with its
 * last id).
 */
export async function streamRunEvents(res: ServerResponse, o: EventStreamOptions): Promise<void> {
  let last = o.afterSeq;
  let lastWrite = Date.now();
  const obligations = new Set<string>();
  const write = (chunk: string) => {
    lastWrite = Date.now();
    return res.write(chunk);
  };
  try {
    // Obligations named before the resume point still apply to what is sent now.
    if (o.view === 'public' && last >= 0) await collectObligations(o.store, o.runId, last, obligations);
    while (!o.signal.aborted) {
      const wait = Math.max(0, o.heartbeatMs - (Date.now() - lastWrite));
      const read = await o.feed.next(last, wait, o.signal);
      if (read.kind === 'events') {
        for (const frame of frames(read.events, o.view, obligations)) {
          write(frame.text);
          last = frame.seq;
        }
        if (read.events.some((e) => TERMINAL_EVENT_TYPES.has(e.type))) return;
      } else if (read.kind === 'closed') {
        write(`event: end\ndata: ${JSON.stringify({ reason: read.reason })}\n\n`);
        return;
      }
      if (!o.signal.aborted && Date.now() - lastWrite >= o.heartbeatMs) write(': keep-alive\n\n');
    }
  } catch (err) {
    if (!o.signal.aborted)
      write(
        `event: error\ndata: ${JSON.stringify({ code: 'stream.store_unavailable', message: (err as Error).message.slice(0, 200) })}\n\n`,
      );
  } finally {
    o.feed.release();
  }
}

async function collectObligations(
  store: EvidenceStore,
  runId: string,
  upTo: number,
  into: Set<string>,
): Promise<void> {
  let after = -1;
  while (after < upTo) {
    const batch = await store.listEvents(runId, pageAfter(after));
    if (batch.length === 0) return;
    const upToHere = batch.filter((e) => e.seq <= upTo);
    for (const ob of runObligations(upToHere.map((e) => ({ type: e.type, data: e.data })))) into.add(ob);
    after = batch[batch.length - 1]!.seq;
  }
}

function* frames(
  batch: readonly StoredEvent[],
  view: 'public' | 'internal',
  obligations: Set<string>,
): Generator<{ seq: number; text: string }> {
  if (view === 'internal') {
    for (const e of batch) yield { seq: e.seq, text: frame(e.seq, e.type, e.envelope ?? e) };
    return;
  }
  const envelopes = envelopesOf(batch);
  for (const ob of runObligations(envelopes)) obligations.add(ob);
  const projected = projectPublic(envelopes, { obligations: [...obligations] });
  const bySeq = new Map(projected.events.map((e) => [e.sequence, e]));
  for (const e of batch) {
    const p = bySeq.get(e.seq);
    yield p
      ? { seq: e.seq, text: frame(e.seq, p.type, p) }
      : { seq: e.seq, text: frame(e.seq, 'omitted', { sequence: e.seq, reason: 'restricted' }) };
  }
}

function frame(seq: number, type: string, data: unknown): string {
  const event = /^[A-Za-z0-9_.:-]{1,100}$/.test(type) ? type : 'message';
  return `id: ${seq}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
