import type { Arm } from './arms.js';
import type { GrowthSample } from '../scenarios/growth.js';
import type { LatencySample } from '../scenarios/latency.js';
import type { MemorySample } from '../scenarios/memory.js';
import type { ReplaySample } from '../scenarios/replay.js';
import type { SaturationSample } from '../scenarios/saturation.js';
import { median } from './stats.js';

/** Everything measured in one repetition (one fresh server). */
export interface RepResult {
  readonly rep: number;
  readonly latency: LatencySample[];
  readonly growth: GrowthSample[];
  readonly saturation: SaturationSample[];
  readonly memory: MemorySample[];
}

export type PerArm<T> = Record<Arm, T> & { ratio: number };

export interface Summary {
  readonly latency: {
    steps: number;
    p50Ms: PerArm<number>;
    p99Ms: PerArm<number>;
    wallPerStepMs: PerArm<number>;
  }[];
  readonly history: {
    readonly steps: number;
    readonly eventsPerStep: PerArm<number>;
    readonly bytesPerStep: PerArm<number>;
    /** Bytes per step in the first and the last window of the curve, and last/first. */
    readonly firstWindowBytesPerStep: Record<Arm, number>;
    readonly lastWindowBytesPerStep: Record<Arm, number>;
    readonly windowGrowth: Record<Arm, number>;
    readonly bytesR2: Record<Arm, number>;
    readonly totalEvents: PerArm<number>;
    readonly totalBytes: PerArm<number>;
    /** Events before the first model call (run start overhead). */
    readonly startEvents: Record<Arm, number>;
    /** Events of the run that are not per step: events in the run - steps x events per step. */
    readonly fixedEvents: Record<Arm, number>;
    readonly curve: Record<Arm, { step: number; events: number; bytes: number }[]>;
    readonly stepShape: Record<Arm, string[]>;
  };
  readonly saturation: {
    runs: number;
    stepsPerRun: number;
    runsPerSecond: PerArm<number>;
    stepsPerSecond: PerArm<number>;
    /** CPU ms per run during the drain: this process (worker, activities, client) and the dev server. */
    benchCpuMsPerRun: PerArm<number>;
    serverCpuMsPerRun: PerArm<number>;
  }[];
  readonly memory: {
    cachedRuns: number;
    atStep: number;
    heapPerRunKiB: PerArm<number>;
    rssPerRunKiB: PerArm<number>;
  };
  readonly replay: { steps: number; cpuPerStepMs: PerArm<number>; cpuMs: PerArm<number> }[];
  readonly targets: { name: string; met: boolean; detail: string }[];
}

function perArm(get: (arm: Arm) => number): PerArm<number> {
  const harness = get('harness');
  const bare = get('bare');
  return { harness, bare, ratio: harness / bare };
}

function medianOver<T>(items: readonly T[], pick: (t: T) => number): number {
  return median(items.map(pick));
}

/** Fixed history events a harness run may have above a bare one: half of the 13 of the first full run. */
const FIXED_EVENTS_TARGET = 6;

/** Medians over repetitions, ratios harness/bare, and the verdict on each target. */
export function summarize(
  reps: readonly RepResult[],
  replay: readonly ReplaySample[],
  historyLimitBytes: number,
): Summary {
  const sizes = [...new Set(reps.flatMap((r) => r.latency.map((l) => l.steps)))].sort((a, b) => a - b);
  const lat = (arm: Arm, steps: number) =>
    reps.map((r) => r.latency.find((l) => l.arm === arm && l.steps === steps)!);
  const latency = sizes.map((steps) => ({
    steps,
    p50Ms: perArm((a) => medianOver(lat(a, steps), (l) => l.p50Ms)),
    p99Ms: perArm((a) => medianOver(lat(a, steps), (l) => l.p99Ms)),
    wallPerStepMs: perArm((a) => medianOver(lat(a, steps), (l) => median(l.runWallPerStepMs))),
  }));
  const growth = (arm: Arm) => reps.flatMap((r) => r.growth.filter((g) => g.arm === arm));
  const g0 = growth('harness')[0]!;
  const last = (arr: readonly { bytesPerStep: number }[]) => arr[arr.length - 1]!.bytesPerStep;
  const span = (g: GrowthSample) => {
    const c0 = g.curve[0]!;
    const cN = g.curve[g.curve.length - 1]!;
    return {
      events: (cN.events - c0.events) / (cN.step - c0.step),
      bytes: (cN.bytes - c0.bytes) / (cN.step - c0.step),
    };
  };
  const history: Summary['history'] = {
    steps: g0.steps,
    // Median over the 50-step windows: a one-off event early in the run is not a per-step cost.
    eventsPerStep: perArm((a) => medianOver(growth(a), (g) => median(g.windows.map((w) => w.eventsPerStep)))),
    bytesPerStep: perArm((a) => medianOver(growth(a), (g) => span(g).bytes)),
    firstWindowBytesPerStep: {
      harness: medianOver(growth('harness'), (g) => g.windows[0]!.bytesPerStep),
      bare: medianOver(growth('bare'), (g) => g.windows[0]!.bytesPerStep),
    },
    lastWindowBytesPerStep: {
      harness: medianOver(growth('harness'), (g) => last(g.windows)),
      bare: medianOver(growth('bare'), (g) => last(g.windows)),
    },
    windowGrowth: {
      harness: medianOver(growth('harness'), (g) => last(g.windows) / g.windows[0]!.bytesPerStep),
      bare: medianOver(growth('bare'), (g) => last(g.windows) / g.windows[0]!.bytesPerStep),
    },
    bytesR2: {
      harness: medianOver(growth('harness'), (g) => g.bytesFit.r2),
      bare: medianOver(growth('bare'), (g) => g.bytesFit.r2),
    },
    totalEvents: perArm((a) => medianOver(growth(a), (g) => g.events)),
    totalBytes: perArm((a) => medianOver(growth(a), (g) => g.bytes)),
    startEvents: {
      harness: growth('harness')[0]!.curve[0]!.events,
      bare: growth('bare')[0]!.curve[0]!.events,
    },
    fixedEvents: {
      harness: medianOver(
        growth('harness'),
        (g) => g.events - g.steps * median(g.windows.map((w) => w.eventsPerStep)),
      ),
      bare: medianOver(
        growth('bare'),
        (g) => g.events - g.steps * median(g.windows.map((w) => w.eventsPerStep)),
      ),
    },
    curve: { harness: growth('harness')[0]!.curve, bare: growth('bare')[0]!.curve },
    stepShape: { harness: growth('harness')[0]!.stepShape, bare: growth('bare')[0]!.stepShape },
  };
  const satSizes = [...new Set(reps[0]!.saturation.map((x) => x.stepsPerRun))];
  const saturation = satSizes.map((stepsPerRun) => {
    const sat = (arm: Arm) =>
      reps.map((r) => r.saturation.find((x) => x.arm === arm && x.stepsPerRun === stepsPerRun)!);
    return {
      runs: sat('harness')[0]!.runs,
      stepsPerRun,
      runsPerSecond: perArm((a) => medianOver(sat(a), (x) => x.runsPerSecond)),
      stepsPerSecond: perArm((a) => medianOver(sat(a), (x) => x.stepsPerSecond)),
      benchCpuMsPerRun: perArm((a) => medianOver(sat(a), (x) => x.cpuMsPerRun.bench)),
      serverCpuMsPerRun: perArm((a) => medianOver(sat(a), (x) => x.cpuMsPerRun.server)),
    };
  });
  const mem = (arm: Arm) => reps.map((r) => r.memory.find((m) => m.arm === arm)!);
  const m0 = mem('harness')[0]!;
  const memory = {
    cachedRuns: m0.cachedRuns,
    atStep: m0.blockedAtStep,
    heapPerRunKiB: perArm((a) => medianOver(mem(a), (m) => m.heapPerRunKiB)),
    rssPerRunKiB: perArm((a) => medianOver(mem(a), (m) => m.rssPerRunKiB)),
  };
  const replaySizes = [...new Set(replay.map((r) => r.steps))].sort((a, b) => a - b);
  const rep = (arm: Arm, steps: number) => replay.find((r) => r.arm === arm && r.steps === steps)!;
  const replayOut = replaySizes.map((steps) => ({
    steps,
    cpuPerStepMs: perArm((a) => rep(a, steps).cpuPerStepMs),
    cpuMs: perArm((a) => rep(a, steps).cpuMs),
  }));
  const ratios = (pick: (l: (typeof latency)[number]) => PerArm<number>) =>
    latency.map((l) => `${l.steps} steps ${pick(l).ratio.toFixed(2)}x`).join(', ');
  const fixedOverBare = history.fixedEvents.harness - history.fixedEvents.bare;
  // The targets of issue 20 (BENCHMARKS.md, "Targets"): all ratios against bare, measured side by side.
  const targets = [
    {
      name: 'throughput >= 0.95x bare (1- and 10-step runs)',
      met: saturation.every((x) => x.runsPerSecond.ratio >= 0.95),
      detail: saturation
        .map(
          (x) =>
            `${x.stepsPerRun}-step runs ${x.runsPerSecond.ratio.toFixed(2)}x (${x.runsPerSecond.harness.toFixed(1)} vs ${x.runsPerSecond.bare.toFixed(1)} runs/s)`,
        )
        .join(', '),
    },
    {
      name: 'per-step latency p50 <= 1.05x bare (every run size)',
      met: latency.every((l) => l.p50Ms.ratio <= 1.05),
      detail: ratios((l) => l.p50Ms),
    },
    {
      name: 'per-step latency p99 <= 1.05x bare (every run size)',
      met: latency.every((l) => l.p99Ms.ratio <= 1.05),
      detail: ratios((l) => l.p99Ms),
    },
    {
      name: 'history bytes per step <= 1.3x bare',
      met: history.bytesPerStep.ratio <= 1.3,
      detail: `${history.bytesPerStep.ratio.toFixed(2)}x (${history.bytesPerStep.harness.toFixed(0)} vs ${history.bytesPerStep.bare.toFixed(0)} bytes/step)`,
    },
    {
      name: `fixed events per run above bare <= ${FIXED_EVENTS_TARGET} (half of the 13 when measured first)`,
      met: fixedOverBare <= FIXED_EVENTS_TARGET,
      detail: `${fixedOverBare.toFixed(0)} (${history.fixedEvents.harness.toFixed(0)} vs ${history.fixedEvents.bare.toFixed(0)})`,
    },
    {
      name: 'no extra history events per step vs bare',
      met: history.eventsPerStep.harness <= history.eventsPerStep.bare,
      detail: `${history.eventsPerStep.harness.toFixed(2)} vs ${history.eventsPerStep.bare.toFixed(2)} events/step`,
    },
    {
      name: `${history.steps}-step run < ${(historyLimitBytes / 1e6).toFixed(0)} MB history without continue-as-new`,
      met: history.totalBytes.harness < historyLimitBytes,
      detail: `${(history.totalBytes.harness / 1e6).toFixed(2)} MB (${(history.totalBytes.harness / 2 ** 20).toFixed(2)} MiB)`,
    },
  ];
  return { latency, history, saturation, memory, replay: replayOut, targets };
}
