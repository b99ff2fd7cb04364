import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';

/** What one `npm run bench` measures; `--full` raises repetitions and sample counts. */
export interface BenchOptions {
  readonly full: boolean;
  /** Repetitions, each on a fresh private dev server. */
  readonly reps: number;
  /** Run size -> runs per arm per repetition, for the latency table. */
  readonly latencyPlan: Readonly<Record<number, number>>;
  readonly growthSteps: number;
  readonly growthEvery: number;
  /** Saturation: steps per run -> runs started per arm (1-step runs carry the most fixed cost per step). */
  readonly saturationPlan: Readonly<Record<number, number>>;
  readonly memoryRuns: number;
  readonly memoryBlockAt: number;
  readonly replayTimes: number;
  /** Where the private servers' db and the evidence stores live: tmpfs unless `--disk`. */
  readonly dataDir: string;
  /** Run the 500-step growth runs in every repetition (`--full`) or only the first. */
  readonly growthEveryRep: boolean;
}

function intFlag(argv: readonly string[], name: string): number | undefined {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const v = Number(argv[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} needs a positive integer`);
  return v;
}

/** Parse `--full`, `--disk`, `--reps N`, `--sat-runs N` (runs of 1 step). @throws Error on a bad value or an unknown flag. */
export function parseOptions(argv: readonly string[]): BenchOptions {
  const known = new Set(['--full', '--disk', '--reps', '--sat-runs']);
  argv.forEach((a, i) => {
    if (a.startsWith('--') && !known.has(a))
      throw new Error(`unknown flag ${a} (known: ${[...known].join(', ')})`);
    if (!a.startsWith('--') && !['--reps', '--sat-runs'].includes(argv[i - 1] ?? ''))
      throw new Error(`unexpected argument ${a}`);
  });
  const full = argv.includes('--full');
  return {
    full,
    reps: intFlag(argv, '--reps') ?? (full ? 5 : 2),
    latencyPlan: full ? { 1: 20, 10: 6, 50: 2 } : { 1: 6, 10: 2, 50: 1 },
    growthSteps: 500,
    growthEvery: 50,
    saturationPlan: { 1: intFlag(argv, '--sat-runs') ?? (full ? 500 : 60), 10: full ? 100 : 20 },
    memoryRuns: full ? 100 : 30,
    memoryBlockAt: 5,
    replayTimes: full ? 5 : 3,
    dataDir: argv.includes('--disk') || !existsSync('/dev/shm') ? tmpdir() : '/dev/shm',
    growthEveryRep: full,
  };
}
