/**
 * `npm run bench` (`--full` for more repetitions and samples, `--reps N`, `--sat-runs N`): the
 * harness against a bare Temporal workflow running the same two activities per step. Prints a table
 * on stdout (progress on stderr) and writes bench/results/<timestamp>.json. See BENCHMARKS.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { projectRoot } from '../src/devserver/config.js';
import { bundleWorkflows } from '../src/worker/bundle.js';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { machineInfo } from './lib/machine.js';
import { parseOptions } from './lib/options.js';
import { progress } from './lib/progress.js';
import { renderReport } from './lib/report.js';
import { createRig } from './lib/rig.js';
import { summarize, type RepResult } from './lib/summary.js';
import { measureGrowth, type HistoryStore } from './scenarios/growth.js';
import { measureLatency } from './scenarios/latency.js';
import { measureMemory } from './scenarios/memory.js';
import { measureReplay } from './scenarios/replay.js';
import { measureSaturation } from './scenarios/saturation.js';
import { benchWorkflowsPath } from './lib/workflows-path.js';

/** The bound: 4 MB (decimal), a little under Temporal's 4 MiB. */
const HISTORY_LIMIT_BYTES = 4_000_000;

async function main(): Promise<void> {
  const started = Date.now();
  const options = parseOptions(process.argv.slice(2));
  let sdkWarnings = 0;
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => {
      sdkWarnings += 1;
      if (sdkWarnings <= 3) process.stderr.write(`[sdk ${entry.level}] ${entry.message.slice(0, 300)}\n`);
    }),
  });
  const machine = await machineInfo();
  progress(
    `${machine.nproc} CPU ${machine.cpuModel}, node ${machine.node}; ${options.reps} repetitions${options.full ? ' (--full)' : ''}`,
  );
  progress('bundling workflows once for every worker');
  const bundle = await bundleWorkflows({ workflowsPath: benchWorkflowsPath });
  const sizes = [
    ...new Set([
      1,
      ...Object.keys(options.latencyPlan).map(Number),
      options.growthSteps,
      ...Object.keys(options.saturationPlan).map(Number),
      options.memoryBlockAt + 2,
    ]),
  ];
  const reps: RepResult[] = [];
  const histories: HistoryStore = { harness: new Map(), bare: new Map() };
  for (let rep = 0; rep < options.reps; rep++) {
    progress(`repetition ${rep + 1}/${options.reps}: starting a private dev server`);
    const rig = await createRig(bundle, sizes, options.dataDir, (l) => progress(`  server: ${l}`));
    try {
      progress(`  server at ${rig.server.address}`);
      const worker = await rig.startWorker(`seq-r${rep}`);
      const latency = await measureLatency(rig, `seq-r${rep}`, options.latencyPlan, rep, histories);
      const growth =
        rep === 0 || options.growthEveryRep
          ? await measureGrowth(rig, `seq-r${rep}`, options.growthSteps, options.growthEvery, rep, histories)
          : [];
      await worker.stop();
      const saturation = await measureSaturation(rig, options.saturationPlan, rep);
      const memory = await measureMemory(
        rig,
        options.memoryRuns,
        options.memoryBlockAt,
        options.memoryBlockAt + 2,
        rep,
      );
      reps.push({ rep, latency, growth, saturation, memory });
    } finally {
      await rig.close();
    }
  }
  progress('replaying recorded histories (no server)');
  const replaySizes = [...new Set([50, options.growthSteps])];
  const replay = await measureReplay(bundle, histories, replaySizes, options.replayTimes);
  const summary = summarize(reps, replay, HISTORY_LIMIT_BYTES);
  const elapsedS = (Date.now() - started) / 1000;
  console.log(renderReport(summary, machine, options, elapsedS));
  if (sdkWarnings > 0)
    console.log(
      `\n${sdkWarnings} SDK warnings (e.g. workflow task over 5 s) were logged during the run; see stderr for the first ones.`,
    );
  const dir = resolve(projectRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `bench-${new Date(started).toISOString().replace(/[:.]/g, '-')}.json`);
  const raw = reps.map((r) => ({
    ...r,
    latency: r.latency.map((l) => ({
      ...l,
      stepLatenciesMs: l.stepLatenciesMs.map((x) => Math.round(x * 100) / 100),
    })),
  }));
  writeFileSync(
    file,
    `${JSON.stringify({ machine, options, elapsedS, sdkWarnings, summary, reps: raw, replay }, null, 1)}\n`,
  );
  console.log(`\nresults: ${file}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
