import type { EvidenceStore, StoredEvent } from '../activities/store/index.js';

/** The events after which a run's stream ends. */
export const TERMINAL_EVENT_TYPES = new Set(['run.completed', 'run.failed', 'run.cancelled']);

/** Events read from the store per query. */
export const EVENT_PAGE = 500;

/** Recent events a feed keeps in memory; a follower further behind reads the store itself. */
const BUFFER_LIMIT = 1_000;

export interface RunEventFeedsOptions {
  readonly store: EvidenceStore;
  /** How often a followed run's store rows are read. */
  readonly pollMs: number;
}

/** What a follower gets from one {@link FeedCursor.next}. */
export type FeedRead =
  | { readonly kind: 'events'; readonly events: readonly StoredEvent[] }
  /** Nothing new within the wait. */
  | { readonly kind: 'idle' }
  /**
   * Nothing more will come: the follower already has the terminal event (`ended`), or the workflow
   * closed without one and every stored event was handed out (`workflow_closed`).
   */
  | { readonly kind: 'closed'; readonly reason: 'ended' | 'workflow_closed' };

/** One follower's handle on a shared feed. */
export interface FeedCursor {
  /**
   * Events with a sequence above `after`, waiting up to `waitMs` (or until `signal` aborts) for new
   * ones. A follower behind the feed's in-memory window reads one page from the store directly.
   * @throws the store's error when the feed's read failed (the feed is dropped; a new follower starts a new one).
   */
  next(after: number, waitMs: number, signal: AbortSignal): Promise<FeedRead>;
  /** Leave the feed; the last follower out stops its polling. Idempotent. */
  release(): void;
}

/**
 * One store poller per followed run, shared by every event stream of that run. With N clients on M
 * runs the service reads the store M times per poll interval instead of N (the load test's 200
 * streams on a few dozen runs once stalled the event loop with their own pollers). A feed reads the
 * run's events from the start, keeps the latest {@link BUFFER_LIMIT} in memory, stops at a terminal
 * event, and asks `stillRunning` when nothing came for a while (a run that closed without a terminal
 * event: terminated, timed out). A store failure fails every current follower of that run (their
 * streams end with an `error` event and clients reconnect); the next follower starts afresh.
 */
export class RunEventFeeds {
  private readonly feeds = new Map<string, RunFeed>();

  constructor(private readonly options: RunEventFeedsOptions) {}

  /** Follow `runId`. `stillRunning` is asked when no event came for a while (the first follower's is used). */
  follow(runId: string, stillRunning: () => Promise<boolean>): FeedCursor {
    let feed = this.feeds.get(runId);
    if (feed === undefined || feed.failure !== undefined) {
      const created = new RunFeed(this.options, runId, stillRunning, () => {
        if (this.feeds.get(runId) === created) this.feeds.delete(runId);
      });
      feed = created;
      this.feeds.set(runId, created);
    }
    return feed.join();
  }

  /** Runs with a live feed (for metrics and tests). */
  get size(): number {
    return this.feeds.size;
  }

  /**
   * Stop every feed (the service is closing); followers see `idle` and their own abort. Resolves once
   * every poller has returned (a store read or a `stillRunning` call in flight finishes first), so the
   * caller may close the store and the Temporal connection after it. Never rejects.
   */
  async close(): Promise<void> {
    const loops = [...this.feeds.values()].map((feed) => feed.stop());
    this.feeds.clear();
    await Promise.allSettled(loops);
  }
}

class RunFeed {
  /** Every event with a sequence above `floor` that the feed has read is in `buffer`, in order. */
  private floor = -1;
  private readonly buffer: StoredEvent[] = [];
  private followers = 0;
  private loop: Promise<void> | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  private readonly waiters = new Set<() => void>();
  /** A terminal event was read: nothing more will come. */
  private ended = false;
  /** The workflow closed without a terminal event. */
  private closed = false;
  failure: Error | undefined;

  constructor(
    private readonly o: RunEventFeedsOptions,
    private readonly runId: string,
    private readonly stillRunning: () => Promise<boolean>,
    private readonly onDone: () => void,
  ) {}

  join(): FeedCursor {
    this.followers += 1;
    this.loop ??= this.poll();
    let left = false;
    return {
      next: (after, waitMs, signal) => this.next(after, waitMs, signal),
      release: () => {
        if (left) return;
        left = true;
        this.followers -= 1;
        if (this.followers === 0) {
          void this.stop();
          this.onDone();
        }
      },
    };
  }

  /** Stop polling; resolves when the poller has returned (at once if it never started). */
  stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    this.notify();
    return this.loop ?? Promise.resolve();
  }

  private get head(): number {
    return this.buffer.length > 0 ? this.buffer[this.buffer.length - 1]!.seq : this.floor;
  }

  private async next(after: number, waitMs: number, signal: AbortSignal): Promise<FeedRead> {
    const first = this.take(after);
    if (first !== undefined) return first;
    if (after < this.floor) {
      const page = await this.o.store.listEvents(this.runId, pageAfter(after));
      return page.length > 0 ? { kind: 'events', events: page } : { kind: 'idle' };
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
    return this.take(after) ?? { kind: 'idle' };
  }

  /** What the buffer can answer now, or undefined when the follower must wait (or read the store). */
  private take(after: number): FeedRead | undefined {
    if (this.failure !== undefined) throw this.failure;
    if (after < this.floor) return undefined;
    const events = this.buffer.filter((e) => e.seq > after);
    if (events.length > 0) return { kind: 'events', events };
    if (this.ended) return { kind: 'closed', reason: 'ended' };
    if (this.closed) return { kind: 'closed', reason: 'workflow_closed' };
    return undefined;
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private async poll(): Promise<void> {
    let idleSince = Date.now();
    const idleCheckMs = Math.max(2_000, this.o.pollMs * 8);
    try {
      while (!this.stopped && !this.ended && !this.closed) {
        if ((await this.readNew()) > 0) idleSince = Date.now();
        else if (Date.now() - idleSince > idleCheckMs) {
          idleSince = Date.now();
          if (!(await this.stillRunning())) {
            await this.readNew(); // what the last workflow task wrote before it closed
            if (!this.ended) this.closed = true;
          }
        }
        this.notify();
        if (this.ended || this.closed) return;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, this.o.pollMs);
          this.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        this.wake = undefined;
      }
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      this.notify();
      this.onDone();
    }
  }

  /** Read every stored event after the head into the buffer; the number read. */
  private async readNew(): Promise<number> {
    let read = 0;
    for (;;) {
      const page = await this.o.store.listEvents(this.runId, pageAfter(this.head));
      if (this.stopped) return read;
      this.buffer.push(...page);
      read += page.length;
      if (page.some((e) => TERMINAL_EVENT_TYPES.has(e.type))) this.ended = true;
      const excess = this.buffer.length - BUFFER_LIMIT;
      if (excess > 0) this.floor = this.buffer.splice(0, excess)[excess - 1]!.seq;
      if (page.length < EVENT_PAGE || this.ended) return read;
    }
  }
}

/** The store's page after `seq` (-1: from the first event). */
export function pageAfter(after: number): { afterSeq?: number; limit: number } {
  return after >= 0 ? { afterSeq: after, limit: EVENT_PAGE } : { limit: EVENT_PAGE };
}
