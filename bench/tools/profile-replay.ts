/**
 * Replay recorded histories and print CPU per replay:
 * `npx tsx bench/tools/profile-replay.ts <dir> [times]` (dir from record-histories.ts). Run it under
 * `node --cpu-prof --import tsx` to see where replay CPU goes. Both arms replay in one process,
 * interleaved; each history is replayed `times` times and the median CPU is printed. With a third
 * argument `copies`, each history is replayed that many times through one replay worker and the CPU
 * per run is printed (the per-run cost without worker start-up). BENCH_PRELOAD and BENCH_WORKFLOWS
 * change the bundle (see below) to try a bundler setting before proposing it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { bundleWorkflows, withWorkflowTarget } from '../../src/worker/bundle.js';
import { recordedWorkflowId } from '../../src/worker/history-fixtures.js';
import { benchWorkflowsPath } from '../lib/workflows-path.js';
import { median } from '../lib/stats.js';

async function main(): Promise<void> {
  const [dir, timesArg, manyArg] = process.argv.slice(2);
  if (!dir) throw new Error('usage: profile-replay.ts <dir> [times] [copies]');
  const times = Number(timesArg ?? 5);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  // BENCH_PRELOAD=a,b: bundle with those modules preloaded (shared by every run of the V8 context).
  // BENCH_WORKFLOWS=path: bundle that entry instead (e.g. bench/workflows/bare-steps.ts alone).
  const preload = process.env.BENCH_PRELOAD?.split(',');
  const entry = process.env.BENCH_WORKFLOWS;
  const bundle =
    preload || entry
      ? await bundleWorkflowCode({
          workflowsPath: entry ?? benchWorkflowsPath,
          preloadModules: preload ?? [],
          logger: new DefaultLogger('WARN'),
          // The target every other bundle has (src/worker/bundle.ts): only the tried setting differs.
          webpackConfigHook: withWorkflowTarget,
        })
      : await bundleWorkflows({ workflowsPath: benchWorkflowsPath });
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  if (manyArg) {
    // Many copies of each history through one replay worker: the per-run cost without worker start-up.
    const copies = Number(manyArg);
    for (let t = 0; t < times; t++) {
      for (const f of t % 2 === 0 ? files : [...files].reverse()) {
        const history = historyFromJSON(JSON.parse(readFileSync(join(dir, f), 'utf8')));
        const c0 = process.cpuUsage();
        const it = Worker.runReplayHistories(
          { workflowBundle: bundle, replayName: 'profile' },
          // Under the recorded id: a run's signed decisions are bound to it (see recordedWorkflowId).
          Array.from({ length: copies }, (_, i) => ({
            workflowId: recordedWorkflowId(history) ?? `p-${f}-${i}`,
            history,
          })),
        );
        for await (const r of it) if (r.error) throw r.error;
        const c = process.cpuUsage(c0);
        console.log(
          `${f.padEnd(18)} ${copies} copies: ${((c.user + c.system) / 1000 / copies).toFixed(2)} ms cpu per run`,
        );
      }
    }
    return;
  }
  const histories = files.map((f) => ({
    name: f.replace(/\.json$/, ''),
    h: historyFromJSON(JSON.parse(readFileSync(join(dir, f), 'utf8'))),
  }));
  const cpu: Record<string, number[]> = {};
  for (let t = 0; t < times; t++) {
    for (const { name, h } of t % 2 === 0 ? histories : [...histories].reverse()) {
      const c0 = process.cpuUsage();
      await Worker.runReplayHistory(
        { workflowBundle: bundle, replayName: 'profile' },
        h,
        recordedWorkflowId(h) ?? `p-${name}`,
      );
      const c = process.cpuUsage(c0);
      (cpu[name] ??= []).push((c.user + c.system) / 1000);
    }
  }
  for (const { name } of histories)
    console.log(
      `${name.padEnd(14)} median cpu ${median(cpu[name]!).toFixed(1)} ms  (${cpu[name]!.map((x) => x.toFixed(0)).join(' ')})`,
    );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
