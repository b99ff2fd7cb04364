import type { ToolCall, ToolDefinition, ToolExecution, ToolExecutor } from '../../src/index.js';
import { HarnessError } from '../../src/index.js';

import { BENCH_FAST_NOOP_TOOL, BENCH_NOOP_TOOL } from './workflow/bench-profile.js';

export { BENCH_FAST_NOOP_TOOL, BENCH_NOOP_TOOL };

/**
 * `bench.noop@v1` (read): does nothing but echo. Args `{ i }` (the step number, so no two calls of a
 * run share an argument digest); output `{ next: i + 1 }`, which the scripted benchmark model reads to
 * choose the next step. Used only by the `bench.steps@v1` profile and `npm run bench`.
 */
export const benchNoopDefinition: ToolDefinition = {
  name: BENCH_NOOP_TOOL,
  version: 'v1',
  description: 'Benchmark no-op: returns { next: i + 1 }.',
  parameters: {
    type: 'object',
    properties: { i: { type: 'integer', minimum: 0 } },
    required: ['i'],
    additionalProperties: false,
  },
  effect: 'read',
};

/**
 * `bench.fast_noop@v1` (read, fast): `bench.noop@v1` declared a fast read, with a 2 s fast timeout.
 * Used by the `bench.fast_steps@v1` profile (the bench's "harness fast" arm).
 */
export const benchFastNoopDefinition: ToolDefinition = {
  ...benchNoopDefinition,
  name: BENCH_FAST_NOOP_TOOL,
  description: 'Benchmark no-op on the fast path: returns { next: i + 1 }.',
  fast: { timeoutMs: 2000 },
};

/** The executor of `bench.noop@v1` (and `bench.fast_noop@v1`). @throws HarnessError `bench.invalid_arguments` when `i` is not an integer. */
export const benchNoopExecutor: ToolExecutor = {
  execute(_ctx, call: ToolCall): Promise<ToolExecution> {
    const i = call.args.i;
    if (typeof i !== 'number' || !Number.isInteger(i)) {
      return Promise.reject(
        new HarnessError('bench.invalid_arguments', 'bench.noop needs an integer i', { args: call.args }),
      );
    }
    return Promise.resolve({ output: { next: i + 1 } });
  },
};

/** Anything tools can be registered with (the harness tool registry). */
export interface BenchToolRegistrar {
  register(definition: ToolDefinition, executor: ToolExecutor): unknown;
}

/** Register `bench.noop@v1` and `bench.fast_noop@v1`. @throws whatever `registry.register` throws (e.g. a name conflict). */
export function registerBenchTools(registry: BenchToolRegistrar): void {
  registry.register(benchNoopDefinition, benchNoopExecutor);
  registry.register(benchFastNoopDefinition, benchNoopExecutor);
}
