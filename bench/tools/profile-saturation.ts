/**
 * Where saturation time goes: `npx tsx bench/tools/profile-saturation.ts [runs] [steps]` starts a
 * private dev server and runs the bench's saturation scenario twice over `runs` runs of `steps` steps
 * (default 1) per arm (`BENCH_ARM=harness`
 * or `bare` for one arm): drain time, the CPU of this process (worker + activities + client) and of
 * the dev server per run, on stderr. Run under `node --cpu-prof --import tsx` to see the worker side.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { bundleWorkflows } from '../../src/worker/bundle.js';
import { armOrder } from '../lib/arms.js';
import { createRig } from '../lib/rig.js';
import { measureSaturation } from '../scenarios/saturation.js';
import { benchWorkflowsPath } from '../lib/workflows-path.js';

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 60);
  const steps = Number(process.argv[3] ?? 1);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const bundle = await bundleWorkflows({ workflowsPath: benchWorkflowsPath });
  const rig = await createRig(bundle, [steps], '/dev/shm', () => undefined);
  try {
    const only = process.env.BENCH_ARM;
    for (const rep of [0, 1])
      await measureSaturation(
        rig,
        { [steps]: runs },
        rep,
        armOrder(rep).filter((a) => only === undefined || a === only),
      );
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
