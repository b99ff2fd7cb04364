/**
 * The run service's metrics in the Prometheus text format (docs/api.md): requests and their latency,
 * run starts, decisions, refusals by reason code, open event streams, and (at scrape time) runs by
 * Temporal execution status. Process-local; label values are bounded sets (routes, codes, statuses).
 */
export class ServiceMetrics {
  private readonly counters = new Map<string, number>();
  private readonly latency = new Map<string, { buckets: number[]; sum: number; count: number }>();
  static readonly BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000];

  /** Add to a counter (`name{labels}`). */
  count(name: string, labels: Readonly<Record<string, string>> = {}, by = 1): void {
    const key = series(name, labels);
    this.counters.set(key, (this.counters.get(key) ?? 0) + by);
  }

  /** Observe one request's latency. */
  observe(route: string, method: string, status: number, ms: number): void {
    this.count('harness_api_requests_total', { route, method, status: String(status) });
    const key = series('', { route, method });
    let h = this.latency.get(key);
    if (!h) {
      h = { buckets: ServiceMetrics.BUCKETS_MS.map(() => 0), sum: 0, count: 0 };
      this.latency.set(key, h);
    }
    ServiceMetrics.BUCKETS_MS.forEach((b, i) => {
      if (ms <= b) h.buckets[i]! += 1;
    });
    h.sum += ms;
    h.count += 1;
  }

  /** The exposition text; `gauges` are values read at scrape time. */
  render(
    gauges: ReadonlyArray<{ name: string; labels?: Record<string, string>; value: number; help: string }>,
  ): string {
    const lines: string[] = [];
    const helped = new Set<string>();
    const help = (name: string, type: string, text: string) => {
      if (helped.has(name)) return;
      helped.add(name);
      lines.push(`# HELP ${name} ${text}`, `# TYPE ${name} ${type}`);
    };
    for (const g of gauges) {
      help(g.name, 'gauge', g.help);
      lines.push(`${series(g.name, g.labels ?? {})} ${g.value}`);
    }
    for (const [key, value] of [...this.counters].sort(([a], [b]) => a.localeCompare(b))) {
      const name = key.split('{')[0]!;
      help(name, 'counter', COUNTER_HELP[name] ?? name);
      lines.push(`${key} ${value}`);
    }
    const hist = 'harness_api_request_duration_ms';
    help(hist, 'histogram', 'API request latency in milliseconds');
    for (const [labelKey, h] of this.latency) {
      const labels = labelKey.slice(1, -1);
      ServiceMetrics.BUCKETS_MS.forEach((b, i) =>
        lines.push(`${hist}_bucket{${labels},le="${b}"} ${h.buckets[i]}`),
      );
      lines.push(`${hist}_bucket{${labels},le="+Inf"} ${h.count}`);
      lines.push(`${hist}_sum{${labels}} ${h.sum}`, `${hist}_count{${labels}} ${h.count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

const COUNTER_HELP: Record<string, string> = {
  harness_api_requests_total: 'API requests by route, method and status',
  harness_runs_started_total: 'Runs started through the API',
  harness_decisions_total: 'Decisions sent through the API, by kind and outcome',
  harness_refusals_total: 'Requests refused, by reason code',
  harness_erasures_total: 'Erasures through the API, by outcome (erased, nothing)',
};

function series(name: string, labels: Readonly<Record<string, string>>): string {
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return name;
  return `${name}{${entries.map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, '_')}"`).join(',')}}`;
}
