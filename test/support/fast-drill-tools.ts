import type { ModelScript } from '../../src/activities/model/scripted-script.js';
import type { ToolDefinition, ToolExecutor } from '../../src/contract/tool.js';
import { BENCH_FAST_NOOP_TOOL } from '../../apps/bench/bench-noop-tool.js';
import { BENCH_TASK_MESSAGE } from '../../apps/bench/bench-script.js';

/** The most a drill call sleeps. */
const MAX_SLEEP_MS = 20_000;

const parameters = {
  type: 'object',
  properties: {
    i: { type: 'integer', minimum: 0 },
    sleepMs: { type: 'integer', minimum: 0, maximum: MAX_SLEEP_MS },
  },
  required: ['i', 'sleepMs'],
  additionalProperties: false,
};

/**
 * Fast reads that take their time, for the fast-path tests (offered by `bench.fast_steps@v1`, which
 * offers every version of `bench.fast_noop`): `v2` with a 10 s fast timeout (killed mid-call), `v3`
 * with 1 s (exceeded).
 */
export const FAST_DRILL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    name: BENCH_FAST_NOOP_TOOL,
    version: 'v2',
    description: 'Fast-path drill: sleeps sleepMs, then returns { next: i + 1 }.',
    parameters,
    effect: 'read',
    fast: { timeoutMs: 10_000 },
  },
  {
    name: BENCH_FAST_NOOP_TOOL,
    version: 'v3',
    description: 'Fast-path drill with a 1 s fast timeout: sleeps sleepMs, then returns { next: i + 1 }.',
    parameters,
    effect: 'read',
    fast: { timeoutMs: 1_000 },
  },
];

/** Sleeps `sleepMs` (ended early by the activity's cancellation), then answers `{ next: i + 1 }`. */
export const fastDrillExecutor: ToolExecutor = {
  async execute(ctx, call) {
    const { i, sleepMs } = call.args as { i: number; sleepMs: number };
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, sleepMs);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('fast drill cancelled'));
      });
    });
    return { output: { next: i + 1 } };
  },
};

/** Register the drill tools. @throws whatever `registry.register` throws. */
export function registerFastDrillTools(registry: {
  register(d: ToolDefinition, e: ToolExecutor): unknown;
}): void {
  for (const d of FAST_DRILL_DEFINITIONS) registry.register(d, fastDrillExecutor);
}

/** A route whose model calls `bench.fast_noop@<version>` once with `sleepMs`, then answers `done`. */
export function fastDrillScript(version: string, sleepMs: number): ModelScript {
  return {
    entries: [
      {
        match: { contains: BENCH_TASK_MESSAGE },
        response: { text: '', toolCalls: [{ name: BENCH_FAST_NOOP_TOOL, version, args: { i: 0, sleepMs } }] },
      },
    ],
    fallback: { text: 'done', toolCalls: [] },
  };
}

/** The drills' routes: killed mid-call (v2, 6 s of 10 s) and timed out (v3, 2.5 s of 1 s). */
export const FAST_DRILL_SCRIPTS: Record<string, ModelScript> = {
  'scripted/fast-drill-kill': fastDrillScript('v2', 6_000),
  'scripted/fast-drill-timeout': fastDrillScript('v3', 2_500),
};
