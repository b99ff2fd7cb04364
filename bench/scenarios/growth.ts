import type proto from '@temporalio/proto';
import { analyzeHistory, eventTypeNames } from '../lib/history.js';
import { armOrder, expectDone, startRun, type Arm } from '../lib/arms.js';
import { progress } from '../lib/progress.js';
import type { Rig } from '../lib/rig.js';
import { linearFit } from '../lib/stats.js';

/** History growth of one long run. */
export interface GrowthSample {
  readonly arm: Arm;
  readonly steps: number;
  readonly events: number;
  readonly bytes: number;
  /** Cumulative events/bytes after every `every` steps (k = 0, every, 2*every, ..., steps). */
  readonly curve: { step: number; events: number; bytes: number }[];
  /** Per window of `every` steps: events and bytes per step (constant when growth is linear). */
  readonly windows: { fromStep: number; eventsPerStep: number; bytesPerStep: number }[];
  /** Least-squares fit of cumulative bytes over steps. */
  readonly bytesFit: { slope: number; r2: number };
  /** Event types of one middle step, to compare the step's shape between arms. */
  readonly stepShape: string[];
  readonly wallMs: number;
  readonly durationMs: number;
}

/** Recorded histories of this repetition, by arm and run size (for the replay scenario). */
export type HistoryStore = Record<Arm, Map<number, proto.temporal.api.history.v1.IHistory>>;

/**
 * One run of `steps` steps per arm (order alternating by repetition); the curve is sampled at the
 * scheduling of each `every`-th model call.
 */
export async function measureGrowth(
  rig: Rig,
  taskQueue: string,
  steps: number,
  every: number,
  rep: number,
  keep: HistoryStore,
): Promise<GrowthSample[]> {
  const out: GrowthSample[] = [];
  for (const arm of armOrder(rep)) {
    const t0 = Date.now();
    const handle = await startRun(rig, arm, steps, taskQueue, `growth-${arm}-${steps}-r${rep}`);
    await expectDone(handle, arm, steps);
    const durationMs = Date.now() - t0;
    const history = await handle.fetchHistory();
    keep[arm].set(steps, history);
    const stats = analyzeHistory(history);
    if (stats.toolCalls !== steps)
      throw new Error(`${handle.workflowId}: ${stats.toolCalls} tool calls, expected ${steps}`);
    const curve = stats.marks
      .filter((m) => m.step % every === 0)
      .map((m) => ({ step: m.step, events: m.events, bytes: m.bytes }));
    const windows = curve.slice(1).map((c, i) => ({
      fromStep: curve[i]!.step,
      eventsPerStep: (c.events - curve[i]!.events) / (c.step - curve[i]!.step),
      bytesPerStep: (c.bytes - curve[i]!.bytes) / (c.step - curve[i]!.step),
    }));
    const fit = linearFit(
      curve.map((c) => c.step),
      curve.map((c) => c.bytes),
    );
    const mid = Math.floor(steps / 2);
    const stepShape = eventTypeNames(history, stats.marks[mid]!.events, stats.marks[mid + 1]!.events);
    out.push({
      arm,
      steps,
      events: stats.events,
      bytes: stats.bytes,
      curve,
      windows,
      bytesFit: { slope: fit.slope, r2: fit.r2 },
      stepShape,
      wallMs: stats.wallMs,
      durationMs,
    });
    progress(
      `  growth ${arm} ${steps} steps: ${stats.events} events, ${(stats.bytes / 1024).toFixed(0)} KiB, ${(durationMs / 1000).toFixed(1)} s`,
    );
  }
  return out;
}
