/** A token bucket: `perSecond` tokens added continuously, at most `burst` held. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.last = now;
  }

  /**
   * Take one token at `now` (ms): 0 when taken, else the milliseconds until one is available. Times
   * may come slightly out of order (requests judged at their arrival, handled in another order): an
   * earlier `now` than the last one adds nothing and takes nothing away.
   */
  take(now: number): number {
    this.tokens = Math.min(this.burst, this.tokens + (Math.max(0, now - this.last) / 1000) * this.perSecond);
    this.last = Math.max(this.last, now);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) / this.perSecond) * 1000);
  }

  /** Give back one token taken for a request that turned out to cost nothing (never above `burst`). */
  give(): void {
    this.tokens = Math.min(this.burst, this.tokens + 1);
  }

  /** True when the bucket is full at `now` (it can be forgotten without changing any answer). */
  isFull(now: number): boolean {
    return this.tokens + (Math.max(0, now - this.last) / 1000) * this.perSecond >= this.burst;
  }
}

/** Token buckets by key, created on first use; full buckets are dropped so memory stays bounded by activity. */
export class BucketMap {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {}

  /** Take one token for `key`: 0 when taken, else the milliseconds until one is available. */
  take(key: string, now: number): number {
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= 10_000) this.sweep(now);
      b = new TokenBucket(this.perSecond, this.burst, now);
      this.buckets.set(key, b);
    }
    return b.take(now);
  }

  /** Give back one token of `key` (a bucket already forgotten was full: nothing to give). */
  give(key: string): void {
    this.buckets.get(key)?.give();
  }

  private sweep(now: number): void {
    for (const [k, b] of this.buckets) if (b.isFull(now)) this.buckets.delete(k);
  }
}
