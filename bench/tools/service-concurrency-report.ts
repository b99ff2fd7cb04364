/** The concurrency bench's printed table (bench/tools/service-concurrency.ts). */

type Stats = { n: number; p50: number; p95: number; max: number };

/** What the table reads of one level's result. */
export interface LevelResult {
  readonly n: number;
  readonly idle: { start: Stats; decide: Stats };
  readonly bareStart: Stats;
  readonly bareDecide: Stats;
  readonly start: Stats;
  readonly decide: Stats;
  readonly ratioStartP50: number;
  readonly ratioStartP95: number;
  readonly ratioDecideP50: number;
  readonly ratioDecideP95: number;
  readonly statuses: Record<string, Record<string, number>>;
  readonly counted: Record<string, unknown>;
  readonly loopDelayMs: { p50: number; p99: number; max: number };
  readonly spans: { start: Record<string, Stats>; decide: Record<string, Stats> };
  readonly checks: Record<string, boolean>;
}

/** The table of `levels` (each a level's result of service-concurrency.ts). */
export function render(levels: readonly LevelResult[]): string {
  const lines = ['run service: concurrent starts and decisions (ms; two tenants)', ''];
  for (const l of levels) {
    lines.push(
      `N=${l.n}: idle start p50 ${l.idle.start.p50} / p95 ${l.idle.start.p95}; idle decide p50 ${l.idle.decide.p50} / p95 ${l.idle.decide.p95}`,
      `  bare client.workflow.start  p50 ${l.bareStart.p50}  p95 ${l.bareStart.p95}  max ${l.bareStart.max}`,
      `  service start               p50 ${l.start.p50}  p95 ${l.start.p95}  max ${l.start.max}  (ratio to bare p50 ${l.ratioStartP50}x, p95 ${l.ratioStartP95}x)`,
      `  bare executeUpdate (decide) p50 ${l.bareDecide.p50}  p95 ${l.bareDecide.p95}  max ${l.bareDecide.max}`,
      `  service decide              p50 ${l.decide.p50}  p95 ${l.decide.p95}  max ${l.decide.max}  (ratio to bare p50 ${l.ratioDecideP50}x, p95 ${l.ratioDecideP95}x)`,
      `  statuses: start ${JSON.stringify(l.statuses.start)}, retry ${JSON.stringify(l.statuses.retry)}, decide ${JSON.stringify(l.statuses.decide)}`,
      `  counted: ${JSON.stringify(l.counted)}; event loop delay p50/p99/max ${l.loopDelayMs.p50}/${l.loopDelayMs.p99}/${l.loopDelayMs.max}`,
      `  start spans: ${spanLine(l.spans.start)}`,
      `  decide spans: ${spanLine(l.spans.decide)}`,
      `  checks: ${Object.entries(l.checks)
        .map(([k, v]) => `${k} ${v ? 'yes' : 'NO'}`)
        .join(', ')}`,
      '',
    );
  }
  return lines.join('\n');
}

const spanLine = (s: Record<string, { n: number; p50: number; p95: number }>) =>
  Object.entries(s)
    .map(([k, v]) => `${k} x${v.n} p50 ${v.p50} p95 ${v.p95}`)
    .join('; ');
