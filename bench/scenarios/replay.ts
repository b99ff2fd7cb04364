import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { ARMS, type Arm } from '../lib/arms.js';
import { progress } from '../lib/progress.js';
import { median } from '../lib/stats.js';
import type { HistoryStore } from './growth.js';

export interface ReplaySample {
  readonly arm: Arm;
  readonly steps: number;
  /** Median process CPU (user + system) of replaying the whole history. */
  readonly cpuMs: number;
  readonly wallMs: number;
  /** (cpu(steps) - cpu(1 step)) / (steps - 1): the per-step part, without the fixed replay-worker cost. */
  readonly cpuPerStepMs: number;
}

async function replayOnce(
  bundle: WorkflowBundleWithSourceMap,
  history: unknown,
  id: string,
): Promise<{ cpuMs: number; wallMs: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Worker.runReplayHistory({ workflowBundle: bundle, replayName: 'bench-replay' }, history, id);
  const c = process.cpuUsage(c0);
  return { cpuMs: (c.user + c.system) / 1000, wallMs: performance.now() - t0 };
}

/**
 * Replay CPU over recorded histories (no server): each history is replayed `times` times with
 * Worker.runReplayHistory, arms interleaved; a nondeterminism error fails the benchmark.
 */
export async function measureReplay(
  bundle: WorkflowBundleWithSourceMap,
  histories: HistoryStore,
  sizes: readonly number[],
  times: number,
): Promise<ReplaySample[]> {
  const runs: Record<string, { cpu: number[]; wall: number[] }> = {};
  for (let t = 0; t < times; t++) {
    for (const arm of t % 2 === 0 ? ARMS : [...ARMS].reverse()) {
      for (const steps of [1, ...sizes]) {
        const h = histories[arm].get(steps);
        if (!h) throw new Error(`no recorded ${arm} history of ${steps} steps`);
        const r = await replayOnce(bundle, h, `replay-${arm}-${steps}`);
        const key = `${arm}:${steps}`;
        (runs[key] ??= { cpu: [], wall: [] }).cpu.push(r.cpuMs);
        runs[key].wall.push(r.wallMs);
      }
    }
    progress(`  replay pass ${t + 1}/${times} done`);
  }
  const out: ReplaySample[] = [];
  for (const arm of ARMS) {
    const base = median(runs[`${arm}:1`]!.cpu);
    for (const steps of sizes) {
      const r = runs[`${arm}:${steps}`]!;
      const cpuMs = median(r.cpu);
      out.push({ arm, steps, cpuMs, wallMs: median(r.wall), cpuPerStepMs: (cpuMs - base) / (steps - 1) });
    }
  }
  return out;
}
