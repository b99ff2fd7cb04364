/** One open event stream: aborted when its client goes away or the service closes. */
export interface OpenStream {
  readonly signal: AbortSignal;
  /** End the stream (its client went away). Idempotent. */
  abort(): void;
  /** The stream has ended: forget it. Idempotent. */
  release(): void;
}

/**
 * The event streams open now, ended together when the service closes. Each stream has its own
 * AbortController held in a set, instead of one `abort` listener per stream on a signal the whole
 * service shares: with more than 10 streams open, the shared signal's listeners tripped Node's
 * "Possible EventTarget memory leak detected" warning (MaxListenersExceededWarning), although every
 * stream removed its listener when it ended. Nothing here can throw.
 */
export class OpenStreams {
  private readonly streams = new Set<AbortController>();
  private closed = false;

  /** A new stream; already aborted when the service has closed. */
  open(): OpenStream {
    const c = new AbortController();
    if (this.closed) c.abort();
    else this.streams.add(c);
    return { signal: c.signal, abort: () => c.abort(), release: () => void this.streams.delete(c) };
  }

  /** Abort every open stream, and every stream opened from now on (the service is closing). */
  closeAll(): void {
    this.closed = true;
    for (const c of this.streams) c.abort();
    this.streams.clear();
  }

  /** Streams open now. */
  get size(): number {
    return this.streams.size;
  }
}
