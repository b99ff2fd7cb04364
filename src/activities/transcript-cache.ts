import type { TranscriptGroup, TurnMemo } from './context/request-package.js';

/**
 * A run's transcript as a worker has built it: every message group through `throughSeq` (tool
 * results resolved), the summaries of older observations made so far (by context item id), and the
 * turns its requests measured (the planner keeps only those it can still send).
 */
export interface CachedTranscript {
  readonly throughSeq: number;
  readonly groups: readonly TranscriptGroup[];
  readonly summaries: ReadonlyMap<string, string>;
  readonly memo?: TurnMemo;
}

/** How many runs' transcripts, and how many message groups in all, one worker keeps. */
export interface TranscriptCacheLimits {
  readonly runs: number;
  readonly groups: number;
}

export const DEFAULT_TRANSCRIPT_CACHE_LIMITS: TranscriptCacheLimits = { runs: 64, groups: 100_000 };

/**
 * The transcripts the model activity built for recent calls, per run, least recently used first out.
 * A call then reads from the evidence store only the message groups (and the tool results they
 * reference) stored since the run's previous call on this worker, not the whole transcript again.
 *
 * Safe to reuse because what it holds never changes once stored: a message group is written once
 * per (run, call number) and an invocation result once per (run, seq); a call's transcript is
 * exactly the groups before it. A miss (another worker served the previous call, the worker
 * restarted, the run was evicted) only means the store is read in full, as without the cache.
 * In memory only; never throws.
 */
export class TranscriptCache {
  private readonly runs = new Map<string, CachedTranscript>();
  private total = 0;

  constructor(private readonly limits: TranscriptCacheLimits = DEFAULT_TRANSCRIPT_CACHE_LIMITS) {}

  /** The transcript of `runId` built so far, or undefined. */
  get(runId: string): CachedTranscript | undefined {
    const found = this.runs.get(runId);
    if (found) {
      this.runs.delete(runId);
      this.runs.set(runId, found);
    }
    return found;
  }

  /** Keep `transcript` for `runId` (replacing what was kept); one larger than the whole cache is not kept. */
  set(runId: string, transcript: CachedTranscript): void {
    this.delete(runId);
    if (transcript.groups.length > this.limits.groups) return;
    this.runs.set(runId, transcript);
    this.total += transcript.groups.length;
    for (const oldest of this.runs.keys()) {
      if (this.runs.size <= this.limits.runs && this.total <= this.limits.groups) break;
      this.delete(oldest);
    }
  }

  /** Number of runs kept (for tests and diagnostics). */
  get size(): number {
    return this.runs.size;
  }

  private delete(runId: string): void {
    const found = this.runs.get(runId);
    if (!found) return;
    this.total -= found.groups.length;
    this.runs.delete(runId);
  }
}
