import type { Client } from '@temporalio/client';
import type { Caller } from './caller-identity.js';
import { quote } from './route-options.js';

/** How long a visibility count of active runs is reused (ms). */
export const ACTIVE_COUNT_MAX_AGE_MS = 1_000;

/** Keys of counts kept before the old ones are swept. */
const MAX_KEYS = 10_000;

interface Snapshot {
  /** When the count's query was sent: starts admitted from then on may be missing from it. */
  readonly askedAt: number;
  readonly count: number;
}

/**
 * Active-run counts for the start admission (docs/api.md, "Admission limits"), read from Temporal's
 * visibility at most once per {@link ACTIVE_COUNT_MAX_AGE_MS} per key (a tenant, a tenant's user)
 * instead of twice per start: concurrent starts of a key share one query in flight, and each answer
 * adds the starts this process admitted since that query was sent (so a burst is not under-counted
 * while the index catches up; a run that ended meanwhile is still counted, erring on the safe side).
 * Before, two `count` queries per start were most of a start's time under load (BENCHMARKS.md, "The
 * run service under load: concurrent starts and decisions").
 *
 * Failure semantics: a count query that fails rejects every caller waiting on it (the start answers
 * 500); nothing is cached, so the next start asks again.
 */
export class ActiveRunCounts {
  private readonly snapshots = new Map<string, Snapshot>();
  private readonly inFlight = new Map<string, Promise<Snapshot>>();
  /** Admission times of the starts this process made, by key, newer than the key's snapshot. */
  private readonly started = new Map<string, number[]>();

  constructor(
    private readonly count: (query: string) => Promise<number>,
    private readonly maxAgeMs = ACTIVE_COUNT_MAX_AGE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Active runs of `key` (its visibility `query`): a fresh enough count plus the starts admitted since it was asked. */
  async get(key: string, query: string): Promise<number> {
    const t = this.now();
    let snap = this.snapshots.get(key);
    if (snap === undefined || t - snap.askedAt >= this.maxAgeMs) snap = await this.refresh(key, query, t);
    const since = snap.askedAt;
    return snap.count + (this.started.get(key) ?? []).filter((s) => s >= since).length;
  }

  /** A start of `keys` was admitted now: counted until a visibility count asked after it replaces it. */
  noteStarted(keys: readonly string[]): void {
    const t = this.now();
    for (const key of keys) {
      const list = this.started.get(key);
      if (list) list.push(t);
      else this.started.set(key, [t]);
    }
  }

  private refresh(key: string, query: string, t: number): Promise<Snapshot> {
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const asked = this.count(query).then(
      (count) => {
        this.inFlight.delete(key);
        const snap = { askedAt: t, count };
        const current = this.snapshots.get(key);
        if (current === undefined || current.askedAt <= t) {
          if (this.snapshots.size >= MAX_KEYS) this.sweep(t);
          this.snapshots.set(key, snap);
          const kept = (this.started.get(key) ?? []).filter((s) => s >= t);
          if (kept.length > 0) this.started.set(key, kept);
          else this.started.delete(key);
        }
        return snap;
      },
      (err: unknown) => {
        this.inFlight.delete(key);
        throw err;
      },
    );
    this.inFlight.set(key, asked);
    return asked;
  }

  private sweep(t: number): void {
    for (const [k, s] of this.snapshots)
      if (t - s.askedAt >= this.maxAgeMs) {
        this.snapshots.delete(k);
        this.started.delete(k);
      }
  }
}

/** The active runs of a caller's tenant and of the caller, as the start admission reads them. */
export interface ActiveRuns {
  /** @throws Temporal's error when visibility does not answer. */
  of(caller: Caller): Promise<{ tenant: number; user: number }>;
  /** The caller's start was admitted. */
  noteStarted(caller: Caller): void;
}

/** {@link ActiveRuns} over `client`'s visibility, through a shared {@link ActiveRunCounts}. */
export function activeRunsIn(client: Client): ActiveRuns {
  const counts = new ActiveRunCounts(async (q) => (await client.workflow.count(q)).count);
  const keys = (c: Caller) => [`t\u0000${c.tenant}`, `u\u0000${c.tenant}\u0000${c.user}`] as const;
  return {
    of: async (caller) => {
      const running = `WorkflowType = 'agentRun' AND ExecutionStatus = 'Running' AND AgentTenant = ${quote(caller.tenant)}`;
      const [t, u] = keys(caller);
      const [tenant, user] = await Promise.all([
        counts.get(t, running),
        counts.get(u, `${running} AND AgentUser = ${quote(caller.user)}`),
      ]);
      return { tenant, user };
    },
    noteStarted: (caller) => counts.noteStarted(keys(caller)),
  };
}
