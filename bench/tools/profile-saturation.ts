/**
 * Where saturation time goes: `npx tsx bench/tools/profile-saturation.ts [runs]` starts a private dev
 * server, then per arm starts `runs` 1-step runs, starts the worker, waits for all, and prints the
 * drain time, the CPU of this process (worker + activities + client) and of the dev server process.
 * Run under `node --cpu-prof --import tsx` to see the worker side.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { bundleWorkflows } from '../../src/worker/bundle.js';
import { ARMS, expectDone, startRun } from '../lib/arms.js';
import { processCpuMs } from '../lib/cpu.js';
import { progress } from '../lib/progress.js';
import { createRig } from '../lib/rig.js';

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 60);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const bundle = await bundleWorkflows();
  const rig = await createRig(bundle, [1], '/dev/shm', () => undefined);
  try {
    const only = process.env.BENCH_ARM;
    for (const arm of [...ARMS, ...ARMS].filter((a) => only === undefined || a === only)) {
      const tq = `ps-${arm}-${Date.now()}`;
      const handles = [];
      for (let i = 0; i < runs; i++) handles.push(await startRun(rig, arm, 1, tq, `${tq}-${i}`));
      const s0 = processCpuMs(rig.server.dir);
      const c0 = process.cpuUsage();
      const t0 = Date.now();
      const worker = await rig.startWorker(tq);
      for (const h of handles) await expectDone(h, arm, 1);
      const wall = Date.now() - t0;
      const c = process.cpuUsage(c0);
      const s = processCpuMs(rig.server.dir) - s0;
      await worker.stop();
      progress(
        `${arm}: ${runs} runs in ${(wall / 1000).toFixed(1)} s = ${(runs / (wall / 1000)).toFixed(1)} runs/s; cpu per run: this process ${((c.user + c.system) / 1000 / runs).toFixed(1)} ms, server ${(s / runs).toFixed(1)} ms`,
      );
    }
  } finally {
    await rig.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
