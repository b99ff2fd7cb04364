import { analyzeHistory, PHASES, type Phase } from '../lib/history.js';
import { armOrder, expectDone, startRun, type Arm } from '../lib/arms.js';
import { progress } from '../lib/progress.js';
import type { Rig } from '../lib/rig.js';
import { median, quantile } from '../lib/stats.js';
import type { HistoryStore } from './growth.js';

/** Per-step latency of one arm at one run size, in one repetition. */
export interface LatencySample {
  readonly arm: Arm;
  readonly steps: number;
  readonly runs: number;
  /** Every step of every run, server clock (model scheduled -> next model scheduled). */
  readonly stepLatenciesMs: number[];
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** First to last history event, divided by steps, per run. */
  readonly runWallPerStepMs: number[];
  readonly events: number[];
  readonly bytes: number[];
  /** Median server-clock duration of each part of a step (activity queue/run, workflow task queue/run). */
  readonly phaseMediansMs: Record<Phase, number>;
}

function emptyPhases(): Record<Phase, number[]> {
  return { modelQueue: [], modelRun: [], toolQueue: [], toolRun: [], wftQueue: [], wftRun: [] };
}

function phaseMedians(p: Record<Phase, number[]>): Record<Phase, number> {
  return Object.fromEntries(PHASES.map((k) => [k, median(p[k])])) as Record<Phase, number>;
}

/**
 * Runs of each size one at a time (an unloaded worker), the arms interleaved run by run with the
 * order alternating. Every run is checked (status, tool-call count) before its history is used.
 */
export async function measureLatency(
  rig: Rig,
  taskQueue: string,
  plan: Readonly<Record<number, number>>,
  rep: number,
  keep: HistoryStore,
): Promise<LatencySample[]> {
  const out: LatencySample[] = [];
  for (const [stepsText, runs] of Object.entries(plan)) {
    const steps = Number(stepsText);
    const acc: Record<
      Arm,
      { lat: number[]; wall: number[]; events: number[]; bytes: number[]; phases: Record<Phase, number[]> }
    > = {
      harness: { lat: [], wall: [], events: [], bytes: [], phases: emptyPhases() },
      bare: { lat: [], wall: [], events: [], bytes: [], phases: emptyPhases() },
    };
    for (let i = 0; i < runs; i++) {
      for (const arm of armOrder(rep + i)) {
        const handle = await startRun(rig, arm, steps, taskQueue, `lat-${arm}-${steps}-r${rep}-${i}`);
        await expectDone(handle, arm, steps);
        const history = await handle.fetchHistory();
        if (!keep[arm].has(steps)) keep[arm].set(steps, history);
        const stats = analyzeHistory(history);
        if (stats.toolCalls !== steps)
          throw new Error(`${handle.workflowId}: ${stats.toolCalls} tool calls, expected ${steps}`);
        acc[arm].lat.push(...stats.stepLatenciesMs);
        acc[arm].wall.push(stats.wallMs / steps);
        acc[arm].events.push(stats.events);
        acc[arm].bytes.push(stats.bytes);
        for (const p of PHASES) acc[arm].phases[p].push(...stats.phases[p]);
      }
    }
    for (const arm of ['harness', 'bare'] as const) {
      const a = acc[arm];
      out.push({
        arm,
        steps,
        runs,
        stepLatenciesMs: a.lat,
        p50Ms: quantile(a.lat, 0.5),
        p99Ms: quantile(a.lat, 0.99),
        runWallPerStepMs: a.wall,
        events: a.events,
        bytes: a.bytes,
        phaseMediansMs: phaseMedians(a.phases),
      });
    }
    const h = out[out.length - 2]!;
    const b = out[out.length - 1]!;
    progress(
      `  latency ${steps}-step runs x${runs}: harness p50 ${h.p50Ms.toFixed(1)} ms, bare p50 ${b.p50Ms.toFixed(1)} ms`,
    );
  }
  return out;
}
