import { describe, expect, it } from 'vitest';
import { parseCacheMetrics } from '../../../bench/lib/worker-metrics.js';
import { parseWaitingOptions } from '../../../bench/tools/waiting-runs-options.js';
import {
  growth,
  memoryFits,
  perRun,
  render,
  type LevelResult,
} from '../../../bench/tools/waiting-runs-report.js';

const MiB = 2 ** 20;
const mem = (rssMiB: number, heapMiB = 100) => ({
  rss: rssMiB * MiB,
  heapUsed: heapMiB * MiB,
  external: 0,
  gc: true,
});
const cache = (size: number, misses = 0, evictions = 0) => ({
  cacheSize: size,
  forcedEvictions: evictions,
  cacheHits: 0,
  cacheMisses: misses,
  workflowTasks: 0,
});
const phase = (ms: number) => ({ ms, latency: { n: 1, p50: 1, p95: 1, max: 1 }, statuses: { '200': 1 } });

/** A level of `n` runs: `rssMiB` with all waiting over a 400 MiB baseline, approvals in `approveMs`. */
function level(n: number, rssMiB: number, approveMs: number, misses = 0): LevelResult {
  return {
    n,
    workers: 1,
    store: 'sqlite',
    maxCachedWorkflows: 1000,
    concurrency: 32,
    maxStarting: 200,
    start: phase(n * 10),
    allWaitingMs: n * 12,
    read: phase(n * 5),
    approve: { ...phase(approveMs), answeredMs: approveMs / 2 },
    memory: { baseline: [mem(400)], waiting: [mem(rssMiB, 110)], done: [mem(rssMiB)] },
    cache: {
      toWaiting: [cache(Math.min(n, 1000))],
      read: [cache(Math.min(n, 1000))],
      approve: [cache(0, misses)],
    },
    load: { before: 1, after: 1 },
    checks: { ok: true },
  };
}

describe('waiting-runs report', () => {
  it('computes memory and time per waiting run from one level', () => {
    const p = perRun(level(500, 450, 25_000, 250));
    expect(p.rssKiBPerWaitingRun).toBeCloseTo((50 * 1024) / 500);
    expect(p.heapKiBPerWaitingRun).toBeCloseTo((10 * 1024) / 500);
    expect(p.rssKiBPerCachedRun).toBeCloseTo((50 * 1024) / 500);
    expect(p.approveMsPerRun).toBe(50);
    expect(p.replaysPerRun.approve).toBe(0.5);
  });

  it('flags a per-run cost that grows faster than linear, and only that one', () => {
    const levels = [level(1000, 500, 100_000), level(250, 425, 25_000), level(500, 450, 50_000 * 1.5)];
    const g = growth(levels);
    expect(g.map((x) => [x.from, x.to])).toEqual([
      [250, 500],
      [500, 1000],
    ]);
    expect(g[0]!.ratio.rssKiBPerWaitingRun).toBeCloseTo(1);
    expect(g[0]!.superlinear).toEqual(['approveMsPerRun']);
    expect(g[1]!.superlinear).toEqual([]);
    expect(render(levels)).toContain('faster than linear: approveMsPerRun');
  });

  it('fits the marginal memory per run across levels', () => {
    const [fit] = memoryFits([level(250, 425, 1), level(500, 450, 1), level(1000, 500, 1)]);
    expect(fit!.kibPerRun).toBeCloseTo(102.4);
    expect(fit!.fixedMiB).toBeCloseTo(0);
    expect(fit!.r2).toBeCloseTo(1);
  });

  it('reads the sticky cache metrics from Prometheus text, summed over label sets', () => {
    const m = parseCacheMetrics(
      [
        '# HELP temporal_sticky_cache_size x',
        'temporal_sticky_cache_size{namespace="default",task_queue="q"} 7',
        'temporal_sticky_cache_total_forced_eviction_total{task_queue="q"} 3',
        'temporal_sticky_cache_miss{task_queue="q"} 2',
        'temporal_sticky_cache_miss{task_queue="r"} 1',
        'temporal_workflow_task_execution_latency_count{a="b"} 9',
      ].join('\n'),
    );
    expect(m).toEqual({ cacheSize: 7, forcedEvictions: 3, cacheHits: 0, cacheMisses: 3, workflowTasks: 9 });
  });

  it('refuses bad options with the usage and picks PostgreSQL for two workers', () => {
    expect(() => parseWaitingOptions(['--runs', '0'])).toThrow(/positive integer/);
    expect(() => parseWaitingOptions(['--workers', '3'])).toThrow(/1 or 2/);
    expect(() => parseWaitingOptions(['--store', 'mysql'])).toThrow(/sqlite or postgres/);
    expect(() => parseWaitingOptions(['--bogus'])).toThrow(/unknown flag/);
    const o = parseWaitingOptions(['--runs', '250,500', '--workers', '2']);
    expect(o).toMatchObject({ runs: [250, 500], workers: 2, store: 'postgres', concurrency: 32 });
  });
});
