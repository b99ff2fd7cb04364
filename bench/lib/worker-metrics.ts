/**
 * The SDK's sticky cache, read from a worker's Prometheus endpoint (Core's exporter, on loopback;
 * service-load-worker.ts serves it with `LOAD_METRICS_PORT`). Every metric is summed over its label
 * sets (one worker, one task queue: one set each in practice).
 */

/** The sticky cache and replay counters of one worker process at one moment. */
export interface CacheMetrics {
  /** Runs held in the worker's workflow cache now (gauge). */
  readonly cacheSize: number;
  /** Runs evicted because the cache was full (counter since the worker started). */
  readonly forcedEvictions: number;
  /** Workflow tasks for a run the cache held (counter). */
  readonly cacheHits: number;
  /**
   * Workflow tasks (and queries) for a run the cache did not hold: the worker fetched the run's whole
   * history and replayed it (counter). A new run's first task is neither a hit nor a miss.
   */
  readonly cacheMisses: number;
  /** Workflow tasks completed (count of the execution latency histogram). */
  readonly workflowTasks: number;
}

const NAMES: Record<keyof CacheMetrics, string> = {
  cacheSize: 'temporal_sticky_cache_size',
  forcedEvictions: 'temporal_sticky_cache_total_forced_eviction',
  cacheHits: 'temporal_sticky_cache_hit',
  cacheMisses: 'temporal_sticky_cache_miss',
  workflowTasks: 'temporal_workflow_task_execution_latency_count',
};

/**
 * Parse Prometheus text: each of {@link NAMES} summed over its label sets (a counter may carry a
 * `_total` suffix); 0 when absent (nothing counted yet).
 */
export function parseCacheMetrics(text: string): CacheMetrics {
  const sums = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{[^}]*\})?\s+([0-9.eE+-]+|NaN)/.exec(line);
    if (!m) continue;
    const name = m[1]!.replace(/_total$/, '');
    sums.set(name, (sums.get(name) ?? 0) + Number(m[2]));
  }
  const out = {} as Record<keyof CacheMetrics, number>;
  for (const [k, name] of Object.entries(NAMES) as [keyof CacheMetrics, string][])
    out[k] = sums.get(name) ?? 0;
  return out;
}

/** Scrape `http://127.0.0.1:<port>/metrics`. @throws the fetch's errors and a non-200 answer. */
export async function scrapeCacheMetrics(port: number): Promise<CacheMetrics> {
  const r = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (!r.ok) throw new Error(`worker metrics answered ${r.status}`);
  return parseCacheMetrics(await r.text());
}

/** Counters of `after` minus `before`; the cache size is `after`'s (a gauge). */
export function cacheDelta(before: CacheMetrics, after: CacheMetrics): CacheMetrics {
  return {
    cacheSize: after.cacheSize,
    forcedEvictions: after.forcedEvictions - before.forcedEvictions,
    cacheHits: after.cacheHits - before.cacheHits,
    cacheMisses: after.cacheMisses - before.cacheMisses,
    workflowTasks: after.workflowTasks - before.workflowTasks,
  };
}
