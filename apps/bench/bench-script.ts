import type { ModelScript } from '../../src/index.js';
import { BENCH_FAST_NOOP_TOOL, BENCH_NOOP_TOOL } from './bench-noop-tool.js';

/** The task message that starts a benchmark conversation (step 0 matches on it). */
export const BENCH_TASK_MESSAGE = 'bench: begin';

/** Model route of a scripted benchmark run of `steps` steps (`fast`: calling `bench.fast_noop`). */
export function benchRoute(steps: number, fast = false): string {
  return fast ? `scripted/bench-fast-${steps}` : `scripted/bench-${steps}`;
}

/** Fixed usage per call, so token counting does not grow with the transcript and no token budget trips. */
const USAGE = { inputTokens: 100, outputTokens: 10 };

/**
 * The scripted model of a run of `steps` steps: the first call (the task message) and every tool
 * result `{"next":k}` with k < steps answer with `bench.noop { i: k }`; the result `{"next":steps}`
 * answers with the final text `done`. Matching looks only at the last message, so the cost of a
 * match does not grow with the transcript. `fast`: the same with `bench.fast_noop`.
 * @throws RangeError when `steps` is not a positive integer.
 */
export function benchScript(steps: number, fast = false): ModelScript {
  if (!Number.isInteger(steps) || steps < 1)
    throw new RangeError(`steps must be a positive integer, got ${steps}`);
  const call = (i: number) => ({
    text: '',
    toolCalls: [{ name: fast ? BENCH_FAST_NOOP_TOOL : BENCH_NOOP_TOOL, version: 'v1', args: { i } }],
    usage: USAGE,
  });
  const entries: ModelScript['entries'] = [
    { match: { contains: `{"next":${steps}}` }, response: { text: 'done', toolCalls: [], usage: USAGE } },
    { match: { contains: BENCH_TASK_MESSAGE }, response: call(0) },
  ];
  for (let k = 1; k < steps; k++) entries.push({ match: { contains: `{"next":${k}}` }, response: call(k) });
  return { entries };
}

/** Scripts for every size, regular and fast, keyed by {@link benchRoute}. */
export function benchScripts(sizes: readonly number[]): Record<string, ModelScript> {
  return Object.fromEntries(
    sizes.flatMap((n) => [
      [benchRoute(n), benchScript(n)],
      [benchRoute(n, true), benchScript(n, true)],
    ]),
  );
}
