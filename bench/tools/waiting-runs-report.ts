/**
 * The many-waiting-runs bench's arithmetic and printed table (bench/tools/waiting-runs.ts): per-run
 * figures of one level (memory per waiting run, time per run of each phase, replays per run) and how
 * they change from one level to the next (where the cost grows faster than the number of runs).
 * Pure functions: test/unit/bench/waiting-runs-report.test.ts checks them.
 */
import { linearFit } from '../lib/stats.js';
import type { CacheMetrics } from '../lib/worker-metrics.js';
import type { WorkerMemory } from '../lib/load-worker.js';

/** Latency summary (ms). */
export interface Stats {
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

/** One phase: its wall time and, per request, latency and answers. */
export interface Phase {
  /** Wall time of the phase (ms): see each phase's description in waiting-runs.ts. */
  readonly ms: number;
  readonly latency: Stats;
  /** Answers by `<status>[ <error code>]`. */
  readonly statuses: Record<string, number>;
}

/** What one level (N runs on fresh servers and workers) measured. */
export interface LevelResult {
  readonly n: number;
  readonly workers: number;
  readonly store: 'sqlite' | 'postgres';
  readonly maxCachedWorkflows: number;
  readonly concurrency: number;
  /** Started runs not yet waiting, at most: starts wait for the workers (waiting-runs-options.ts). */
  readonly maxStarting: number;
  /** N starts through the service: first request -> last answer (paced by `maxStarting`). */
  readonly start: Phase;
  /** First start request -> visibility shows all N waiting for the approval. */
  readonly allWaitingMs: number;
  /** N `GET /v1/runs/{id}` by the approver (the pending action id): first -> last answer. */
  readonly read: Phase;
  /** N approvals: first request -> the last run's close time (server clock); latency per request. */
  readonly approve: Phase & { readonly answeredMs: number };
  /** Per worker process: before any run, all N waiting, after all succeeded (after a forced GC). */
  readonly memory: {
    readonly baseline: readonly WorkerMemory[];
    readonly waiting: readonly WorkerMemory[];
    readonly done: readonly WorkerMemory[];
  };
  /** Per worker process: sticky cache counters over each phase (cacheSize: at its end). */
  readonly cache: {
    readonly toWaiting: readonly CacheMetrics[];
    readonly read: readonly CacheMetrics[];
    readonly approve: readonly CacheMetrics[];
  };
  /** Machine load average (1 min) at the level's start and end. */
  readonly load: { readonly before: number; readonly after: number };
  readonly checks: Record<string, boolean>;
}

/** Per-run figures of one level. */
export interface PerRun {
  readonly n: number;
  /** (RSS with N waiting - RSS before any run), summed over the workers, / N (KiB). */
  readonly rssKiBPerWaitingRun: number;
  /** The same for the main thread's V8 heap (KiB): activities and SDK plumbing, not workflow state. */
  readonly heapKiBPerWaitingRun: number;
  /** The RSS delta per run the caches held when all waited (KiB); NaN when none was held. */
  readonly rssKiBPerCachedRun: number;
  /** Runs held in the workers' caches when all waited (sum). */
  readonly cachedWhenWaiting: number;
  readonly startMsPerRun: number;
  /** First start -> all N waiting, per run. */
  readonly toWaitingMsPerRun: number;
  readonly readMsPerRun: number;
  readonly approveMsPerRun: number;
  /** Replays of runs the cache did not hold (cache misses) per run, in each phase. */
  readonly replaysPerRun: { readonly toWaiting: number; readonly read: number; readonly approve: number };
  /** Forced evictions in the whole level, per run. */
  readonly evictionsPerRun: number;
}

const KiB = 1024;
const sum = (v: readonly number[]) => v.reduce((a, b) => a + b, 0);
const total = (v: readonly CacheMetrics[], k: keyof CacheMetrics) => sum(v.map((m) => m[k]));

/** Per-run figures of `l`. */
export function perRun(l: LevelResult): PerRun {
  const rss = sum(l.memory.waiting.map((m) => m.rss)) - sum(l.memory.baseline.map((m) => m.rss));
  const heap = sum(l.memory.waiting.map((m) => m.heapUsed)) - sum(l.memory.baseline.map((m) => m.heapUsed));
  const cached = total(l.cache.toWaiting, 'cacheSize');
  return {
    n: l.n,
    rssKiBPerWaitingRun: rss / KiB / l.n,
    heapKiBPerWaitingRun: heap / KiB / l.n,
    rssKiBPerCachedRun: cached > 0 ? rss / KiB / cached : Number.NaN,
    cachedWhenWaiting: cached,
    startMsPerRun: l.start.ms / l.n,
    toWaitingMsPerRun: l.allWaitingMs / l.n,
    readMsPerRun: l.read.ms / l.n,
    approveMsPerRun: l.approve.ms / l.n,
    replaysPerRun: {
      toWaiting: total(l.cache.toWaiting, 'cacheMisses') / l.n,
      read: total(l.cache.read, 'cacheMisses') / l.n,
      approve: total(l.cache.approve, 'cacheMisses') / l.n,
    },
    evictionsPerRun:
      (total(l.cache.toWaiting, 'forcedEvictions') +
        total(l.cache.read, 'forcedEvictions') +
        total(l.cache.approve, 'forcedEvictions')) /
      l.n,
  };
}

/** Levels grouped by what they share but N (workers, store, cache size), each group ordered by N. */
function groups(levels: readonly LevelResult[]): LevelResult[][] {
  const by = new Map<string, LevelResult[]>();
  for (const l of levels) {
    const key = `${l.workers}/${l.store}/${l.maxCachedWorkflows}`;
    by.set(key, [...(by.get(key) ?? []), l]);
  }
  return [...by.values()].map((g) => [...g].sort((a, b) => a.n - b.n));
}

/** The marginal memory of a waiting run: a line through (N, RSS delta) over the levels of a group. */
export interface MemoryFit {
  readonly workers: number;
  readonly store: string;
  readonly maxCachedWorkflows: number;
  readonly levels: readonly number[];
  /** Slope: KiB of RSS (all workers) per further waiting run. */
  readonly kibPerRun: number;
  /** Intercept: MiB the first runs cost once (code paths, JIT, the workflow context). */
  readonly fixedMiB: number;
  readonly r2: number;
}

/** {@link MemoryFit} of each group with at least two distinct N. */
export function memoryFits(levels: readonly LevelResult[]): MemoryFit[] {
  return groups(levels).flatMap((g) => {
    if (new Set(g.map((l) => l.n)).size < 2) return [];
    const rss = g.map(
      (l) => (sum(l.memory.waiting.map((m) => m.rss)) - sum(l.memory.baseline.map((m) => m.rss))) / KiB,
    );
    const fit = linearFit(
      g.map((l) => l.n),
      rss,
    );
    return [
      {
        workers: g[0]!.workers,
        store: g[0]!.store,
        maxCachedWorkflows: g[0]!.maxCachedWorkflows,
        levels: g.map((l) => l.n),
        kibPerRun: fit.slope,
        fixedMiB: fit.intercept / KiB,
        r2: fit.r2,
      },
    ];
  });
}

/** A per-run figure that the growth table compares between levels. */
export const GROWTH_KEYS = [
  'rssKiBPerWaitingRun',
  'startMsPerRun',
  'toWaitingMsPerRun',
  'readMsPerRun',
  'approveMsPerRun',
] as const;
export type GrowthKey = (typeof GROWTH_KEYS)[number];

/** Per-run cost at a level over the one before: above this, the cost grows faster than linear. */
export const SUPERLINEAR_RATIO = 1.2;

/** One step from a level to the next of the same workers and store. */
export interface Growth {
  readonly from: number;
  readonly to: number;
  /** Per-run figure at `to` / at `from`: 1 is linear total cost, above 1 faster than linear. */
  readonly ratio: Record<GrowthKey, number>;
  /** The figures whose ratio is above {@link SUPERLINEAR_RATIO}. */
  readonly superlinear: readonly GrowthKey[];
}

/**
 * Ratios of the per-run figures between consecutive levels (ordered by N) of the same worker count
 * and store: a ratio of 1 means the total grows linearly with N.
 */
export function growth(levels: readonly LevelResult[]): Growth[] {
  const out: Growth[] = [];
  for (const g of groups(levels)) {
    const sorted = g.map(perRun);
    for (let i = 1; i < sorted.length; i++) {
      const a = sorted[i - 1]!;
      const b = sorted[i]!;
      if (a.n === b.n) continue;
      const ratio = Object.fromEntries(GROWTH_KEYS.map((k) => [k, b[k] / a[k]])) as Record<GrowthKey, number>;
      out.push({
        from: a.n,
        to: b.n,
        ratio,
        superlinear: GROWTH_KEYS.filter((k) => ratio[k] > SUPERLINEAR_RATIO),
      });
    }
  }
  return out;
}

const f = (x: number, d = 1): string => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const MiB = (b: number) => f(b / 2 ** 20, 0);
const stat = (s: Stats) => `p50 ${f(s.p50, 0)} p95 ${f(s.p95, 0)} max ${f(s.max, 0)} ms`;

/** The printed result of `levels` (each a level of waiting-runs.ts), then the growth between them. */
export function render(levels: readonly LevelResult[]): string {
  const lines = [
    'many waiting runs: refund.graph runs waiting for an approval, approved through the run service',
    '',
  ];
  for (const l of levels) {
    const p = perRun(l);
    const cache = (v: readonly CacheMetrics[]) =>
      `replayed (cache misses) ${total(v, 'cacheMisses')}, hits ${total(v, 'cacheHits')}, forced evictions ${total(v, 'forcedEvictions')}, workflow tasks ${total(v, 'workflowTasks')}, cached at end ${total(v, 'cacheSize')}`;
    lines.push(
      `N=${l.n} on ${l.workers} worker(s), ${l.store} evidence store, sticky cache ${l.maxCachedWorkflows} per worker, ${l.concurrency} requests at a time, at most ${l.maxStarting} starting; load ${f(l.load.before, 1)} -> ${f(l.load.after, 1)}`,
      `  starts    ${f(l.start.ms / 1000)} s (${f(p.startMsPerRun, 1)} ms/run), ${stat(l.start.latency)}; all waiting after ${f(l.allWaitingMs / 1000)} s`,
      `  RSS MiB   baseline ${l.memory.baseline.map((m) => MiB(m.rss)).join(' + ')}, waiting ${l.memory.waiting.map((m) => MiB(m.rss)).join(' + ')}, done ${l.memory.done.map((m) => MiB(m.rss)).join(' + ')}`,
      `  heap MiB  baseline ${l.memory.baseline.map((m) => MiB(m.heapUsed)).join(' + ')}, waiting ${l.memory.waiting.map((m) => MiB(m.heapUsed)).join(' + ')} (main thread)`,
      `  per waiting run: RSS ${f(p.rssKiBPerWaitingRun)} KiB, main-thread heap ${f(p.heapKiBPerWaitingRun)} KiB; per cached run (${p.cachedWhenWaiting} cached) RSS ${f(p.rssKiBPerCachedRun)} KiB`,
      `  cache to waiting: ${cache(l.cache.toWaiting)}`,
      `  read      ${f(l.read.ms / 1000)} s (${f(p.readMsPerRun, 1)} ms/run), ${stat(l.read.latency)}; ${cache(l.cache.read)}`,
      `  approve   ${f(l.approve.ms / 1000)} s to all succeeded (${f(p.approveMsPerRun, 1)} ms/run; answered after ${f(l.approve.answeredMs / 1000)} s), ${stat(l.approve.latency)}; ${cache(l.cache.approve)}`,
      `  statuses: start ${JSON.stringify(l.start.statuses)}, read ${JSON.stringify(l.read.statuses)}, approve ${JSON.stringify(l.approve.statuses)}`,
      `  checks: ${Object.entries(l.checks)
        .map(([k, v]) => `${k} ${v ? 'yes' : 'NO'}`)
        .join(', ')}`,
      '',
    );
  }
  for (const m of memoryFits(levels))
    lines.push(
      `marginal RSS per waiting run (${m.workers} worker(s), ${m.store}, cache ${m.maxCachedWorkflows}; N ${m.levels.join(', ')}): ${f(m.kibPerRun)} KiB/run + ${f(m.fixedMiB)} MiB once (R^2 ${f(m.r2, 3)})`,
    );
  const g = growth(levels);
  if (g.length > 0) {
    lines.push(`per-run cost at N over the level before (1.00 = linear; above ${SUPERLINEAR_RATIO} flagged)`);
    for (const x of g)
      lines.push(
        `  ${x.from} -> ${x.to}: ${GROWTH_KEYS.map((k) => `${k} ${f(x.ratio[k], 2)}x`).join(', ')}${x.superlinear.length ? `; faster than linear: ${x.superlinear.join(', ')}` : ''}`,
      );
  }
  return lines.join('\n');
}
