/**
 * Record bench histories for offline profiling: `npx tsx bench/tools/record-histories.ts <dir> [sizes...]`
 * starts a private dev server, runs one harness and one bare run of each size (default 1 50 200) and
 * writes `<dir>/<arm>-<steps>.json` (the history as JSON). Use with bench/tools/profile-replay.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { bundleWorkflows } from '../../src/worker/bundle.js';
import { ARMS, expectDone, startRun } from '../lib/arms.js';
import { progress } from '../lib/progress.js';
import { createRig } from '../lib/rig.js';
import { benchWorkflowsPath } from '../lib/workflows-path.js';

async function main(): Promise<void> {
  const [dir, ...rest] = process.argv.slice(2);
  if (!dir) throw new Error('usage: record-histories.ts <dir> [sizes...]');
  const sizes = rest.length > 0 ? rest.map(Number) : [1, 50, 200];
  Runtime.install({ logger: new DefaultLogger('WARN') });
  mkdirSync(dir, { recursive: true });
  const bundle = await bundleWorkflows({ workflowsPath: benchWorkflowsPath });
  const rig = await createRig(bundle, sizes, '/dev/shm', (l) => progress(`server: ${l}`));
  try {
    const worker = await rig.startWorker('record');
    for (const steps of sizes) {
      for (const arm of ARMS) {
        const h = await startRun(rig, arm, steps, 'record', `record-${arm}-${steps}-${Date.now()}`);
        await expectDone(h, arm, steps);
        writeFileSync(join(dir, `${arm}-${steps}.json`), historyToJSON(await h.fetchHistory()));
        progress(`${arm} ${steps} recorded`);
      }
    }
    await worker.stop();
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
