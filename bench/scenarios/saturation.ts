import type { WorkflowHandle } from '@temporalio/client';
import { armOrder, expectDone, startRun, type Arm } from '../lib/arms.js';
import { ownCpuMs, processCpuMs } from '../lib/cpu.js';
import { progress } from '../lib/progress.js';
import type { Rig } from '../lib/rig.js';

export interface SaturationSample {
  readonly arm: Arm;
  readonly runs: number;
  readonly stepsPerRun: number;
  /** Worker start -> close time of the last run. */
  readonly drainMs: number;
  readonly runsPerSecond: number;
  readonly stepsPerSecond: number;
  /** CPU per run during the drain: this process (worker, activities, client) and the dev server. */
  readonly cpuMsPerRun: { readonly bench: number; readonly server: number };
}

/** Start `n` runs with at most `parallel` start calls in flight. */
export async function startMany(
  n: number,
  parallel: number,
  start: (i: number) => Promise<WorkflowHandle>,
): Promise<WorkflowHandle[]> {
  const handles: WorkflowHandle[] = new Array<WorkflowHandle>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < n) {
        const i = next++;
        handles[i] = await start(i);
      }
    }),
  );
  return handles;
}

/**
 * Saturation: for each run size of `plan` (steps per run -> runs), `runs` runs are started on a task
 * queue nobody polls, then a fresh worker starts and drains them. Throughput = runs / (worker start
 * -> latest close time); the CPU of this process and of the dev server over the drain is divided by
 * the runs. One task queue and one worker per arm and size; the arm order alternates by repetition
 * (`arms` narrows it, e.g. to profile one arm).
 */
export async function measureSaturation(
  rig: Rig,
  plan: Readonly<Record<number, number>>,
  rep: number,
  arms: readonly Arm[] = armOrder(rep),
): Promise<SaturationSample[]> {
  const out: SaturationSample[] = [];
  for (const [stepsKey, runs] of Object.entries(plan)) {
    const stepsPerRun = Number(stepsKey);
    for (const arm of arms) {
      const taskQueue = `sat-${arm}-s${stepsPerRun}-r${rep}`;
      const handles = await startMany(runs, 16, (i) =>
        startRun(rig, arm, stepsPerRun, taskQueue, `${taskQueue}-${i}`),
      );
      progress(`  saturation ${arm}: ${runs} runs of ${stepsPerRun} steps started, starting the worker`);
      const server0 = processCpuMs(rig.server.dir);
      const own0 = ownCpuMs();
      const t0 = Date.now();
      const worker = await rig.startWorker(taskQueue);
      for (const h of handles) await expectDone(h, arm, stepsPerRun);
      const cpuMsPerRun = {
        bench: (ownCpuMs() - own0) / runs,
        server: (processCpuMs(rig.server.dir) - server0) / runs,
      };
      let last = 0;
      for (const h of handles) last = Math.max(last, (await h.describe()).closeTime?.getTime() ?? Date.now());
      await worker.stop();
      const drainMs = last - t0;
      out.push({
        arm,
        runs,
        stepsPerRun,
        drainMs,
        runsPerSecond: runs / (drainMs / 1000),
        stepsPerSecond: (runs * stepsPerRun) / (drainMs / 1000),
        cpuMsPerRun,
      });
      progress(
        `  saturation ${arm} ${stepsPerRun} steps: ${(runs / (drainMs / 1000)).toFixed(1)} runs/s (${(drainMs / 1000).toFixed(1)} s), cpu/run ${cpuMsPerRun.bench.toFixed(1)} + server ${cpuMsPerRun.server.toFixed(1)} ms`,
      );
    }
  }
  return out;
}
