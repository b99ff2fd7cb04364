import { createGoalProfile } from '../../../src/workflows/index.js';

/** Name of the benchmark's no-op read tool. */
export const BENCH_NOOP_TOOL = 'bench.noop';

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
