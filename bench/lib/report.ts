import type { MachineInfo } from './machine.js';
import type { BenchOptions } from './options.js';
import type { PerArm, Summary } from './summary.js';

function row(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [
    row(head, widths),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map((r) => row(r, widths)),
  ].join('\n');
}

const f = (x: number, d = 1): string => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const arms = (p: PerArm<number>, d = 1): string[] => [f(p.harness, d), f(p.bare, d), `${f(p.ratio, 2)}x`];

/** The human-readable result: one block per measurement, then the targets. */
export function renderReport(s: Summary, machine: MachineInfo, o: BenchOptions, elapsedS: number): string {
  const out: string[] = [];
  out.push(
    `agent-harness benchmark: harness (agentRun, bench.steps@v1) vs bare workflow (bareSteps), same activities`,
    `${machine.nproc} CPU (${machine.cpuModel}), ${machine.memoryTotalMiB} MiB, node ${machine.node}, Temporal SDK ${machine.temporalSdk}`,
    `${o.reps} repetitions (fresh private dev server each), medians over repetitions; ${f(elapsedS, 0)} s total${o.full ? ' (--full)' : ''}`,
    '',
    '1. Per-step latency (ms, server clock: model call scheduled -> next model call scheduled; runs one at a time)',
    table(
      [
        'run size',
        'p50 harness',
        'p50 bare',
        'ratio',
        'p99 harness',
        'p99 bare',
        'ratio',
        'wall/step harness',
        'wall/step bare',
        'ratio',
      ],
      s.latency.map((l) => [
        `${l.steps} steps`,
        ...arms(l.p50Ms),
        ...arms(l.p99Ms),
        ...arms(l.wallPerStepMs),
      ]),
    ),
    '',
    `2. History per step (${s.history.steps}-step run, curve every 50 steps)`,
    table(
      ['', 'harness', 'bare', 'ratio'],
      [
        ['events per step', ...arms(s.history.eventsPerStep, 2)],
        ['bytes per step', ...arms(s.history.bytesPerStep, 0)],
        ['events in the run', ...arms(s.history.totalEvents, 0)],
        [
          'history bytes (KiB)',
          ...arms(
            {
              harness: s.history.totalBytes.harness / 1024,
              bare: s.history.totalBytes.bare / 1024,
              ratio: s.history.totalBytes.ratio,
            },
            0,
          ),
        ],
        ['events before step 1', f(s.history.startEvents.harness, 0), f(s.history.startEvents.bare, 0), ''],
        [
          'fixed events in the run',
          f(s.history.fixedEvents.harness, 0),
          f(s.history.fixedEvents.bare, 0),
          '',
        ],
        [
          'bytes/step, first window',
          f(s.history.firstWindowBytesPerStep.harness, 0),
          f(s.history.firstWindowBytesPerStep.bare, 0),
          '',
        ],
        [
          'bytes/step, last window',
          f(s.history.lastWindowBytesPerStep.harness, 0),
          f(s.history.lastWindowBytesPerStep.bare, 0),
          '',
        ],
        [
          'last/first window',
          `${f(s.history.windowGrowth.harness, 3)}x`,
          `${f(s.history.windowGrowth.bare, 3)}x`,
          '',
        ],
        ['R^2 of bytes vs steps', f(s.history.bytesR2.harness, 5), f(s.history.bytesR2.bare, 5), ''],
      ],
    ),
    '',
    table(
      ['after step', 'harness events', 'harness KiB', 'bare events', 'bare KiB'],
      s.history.curve.harness.map((c, i) => {
        const b = s.history.curve.bare[i];
        return [
          String(c.step),
          String(c.events),
          f(c.bytes / 1024, 1),
          b ? String(b.events) : '',
          b ? f(b.bytes / 1024, 1) : '',
        ];
      }),
    ),
    '',
    '3. Saturation throughput (N runs started, then the worker; CPU per run over the drain)',
    table(
      ['run size', 'runs', 'measure', 'harness', 'bare', 'ratio'],
      s.saturation.flatMap((x) => [
        [`${x.stepsPerRun} steps`, String(x.runs), 'runs/s', ...arms(x.runsPerSecond, 1)],
        ['', '', 'steps/s', ...arms(x.stepsPerSecond, 1)],
        ['', '', 'cpu ms/run, bench process', ...arms(x.benchCpuMsPerRun, 1)],
        ['', '', 'cpu ms/run, dev server', ...arms(x.serverCpuMsPerRun, 1)],
      ]),
    ),
    '',
    '4. Replay CPU (Worker.runReplayHistory, no server; per step = (cpu(N) - cpu(1 step)) / (N - 1))',
    table(
      [
        'history',
        'cpu/step harness ms',
        'cpu/step bare ms',
        'ratio',
        'total harness ms',
        'total bare ms',
        'ratio',
      ],
      s.replay.map((r) => [`${r.steps} steps`, ...arms(r.cpuPerStepMs, 3), ...arms(r.cpuMs, 0)]),
    ),
    '',
    `5. Worker memory per cached run (${s.memory.cachedRuns} runs held at step ${s.memory.atStep}, debugMode, after forced GC)`,
    table(
      ['', 'harness', 'bare', 'ratio'],
      [
        ['heap KiB/run', ...arms(s.memory.heapPerRunKiB, 1)],
        ['RSS KiB/run', ...arms(s.memory.rssPerRunKiB, 1)],
      ],
    ),
    '',
    'Targets',
    table(
      ['target', 'met', 'measured'],
      s.targets.map((t) => [t.name, t.met ? 'yes' : 'NO', t.detail]),
    ),
  );
  return out.join('\n');
}
