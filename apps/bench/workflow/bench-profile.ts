import { createGoalProfile } from '../../../src/workflows/index.js';

/** Name of the benchmark's no-op read tool. */
export const BENCH_NOOP_TOOL = 'bench.noop';

/** Name of the same no-op declared a fast read (`fast`: a local activity on the fast path). */
export const BENCH_FAST_NOOP_TOOL = 'bench.fast_noop';

/**
 * `bench.steps@v1`: the benchmark's goal profile. Each step is one model call that proposes
 * `bench.noop` and the tool call itself; the run ends when the (scripted) model answers with text.
 * Success is a delivered answer (`solution_delivered@v1`).
 */
export const benchStepsProfile = createGoalProfile({
  name: 'bench.steps',
  version: 'v1',
  instructions: 'Benchmark: call bench.noop with the step number until told to stop.',
  tools: [BENCH_NOOP_TOOL],
  // One read tool and nothing else: allow-all is what the benchmark measures against.
  policies: { default: 'allow_all@v1' },
  completion: { evaluator: { name: 'solution_delivered', version: 'v1' } },
});

/**
 * `bench.fast_steps@v1`: {@link benchStepsProfile} on the fast path. Its one tool is
 * `bench.fast_noop`, the same no-op declared a fast read, so a run with the fast path runs every tool
 * call as a local activity (docs/runner.md, "Fast path").
 */
export const benchFastStepsProfile = createGoalProfile({
  name: 'bench.fast_steps',
  version: 'v1',
  instructions: 'Benchmark: call bench.fast_noop with the step number until told to stop.',
  tools: [BENCH_FAST_NOOP_TOOL],
  policies: { default: 'allow_all@v1' },
  completion: { evaluator: { name: 'solution_delivered', version: 'v1' } },
});
