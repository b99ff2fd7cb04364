import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelScript } from '../../src/index.js';
import { benchScript } from '../../apps/bench/bench-script.js';

/** One scripted route version of a routes file written by {@link writeScriptedRoutesFile}. */
export interface ScriptedRouteSpec {
  readonly script: ModelScript;
  /** The route's fast path (docs/models.md, "Fast model routes"); absent: a regular route. */
  readonly fast?: { readonly timeoutMs: number };
}

/** The fast try's bound of the bench's fast model routes: the same as `bench.fast_noop`'s. */
export const BENCH_FAST_MODEL_MS = 2_000;

/** The routes-file version of the scripted bench route of `steps` steps on `bench.fast_noop`, fast or not. */
export function benchModelRoute(steps: number, fast = true): string {
  return fast ? `bench-fast-model-${steps}@v1` : `bench-model-${steps}@v1`;
}

/**
 * The routes of {@link benchModelRoute} for each size: the script of `bench.fast_steps@v1`
 * (`benchScript(n, true)`), once with `fast: { timeoutMs: BENCH_FAST_MODEL_MS }`, once without.
 */
export function benchModelRoutes(sizes: readonly number[]): Record<string, ScriptedRouteSpec> {
  return Object.fromEntries(
    sizes.flatMap((n) => [
      [benchModelRoute(n), { script: benchScript(n, true), fast: { timeoutMs: BENCH_FAST_MODEL_MS } }],
      [benchModelRoute(n, false), { script: benchScript(n, true) }],
    ]),
  );
}

/**
 * Writes a model routes file (docs/models.md, "Model routes file") of scripted routes into `dir`,
 * each script beside it, the first route the default purpose; returns the file's path for
 * `HARNESS_MODEL_ROUTES`. Prices are zero and the window 128,000 tokens, as for the bench's routes
 * registered in code.
 * @throws RangeError without a route; the file system's errors.
 */
export function writeScriptedRoutesFile(dir: string, routes: Record<string, ScriptedRouteSpec>): string {
  const keys = Object.keys(routes);
  if (keys.length === 0) throw new RangeError('a routes file needs a route');
  const file = {
    schemaVersion: 1,
    routes: Object.fromEntries(
      keys.map((key, i) => {
        const script = `script-${i}.json`;
        writeFileSync(join(dir, script), JSON.stringify(routes[key]!.script));
        const fast = routes[key]!.fast;
        return [
          key,
          {
            provider: 'scripted',
            model: 'scripted',
            script,
            contextWindow: 128_000,
            prices: { inputUsdPerMTok: 0, outputUsdPerMTok: 0 },
            ...(fast ? { fast } : {}),
          },
        ];
      }),
    ),
    purposes: { default: keys[0] },
  };
  const path = join(dir, 'routes.json');
  writeFileSync(path, JSON.stringify(file));
  return path;
}
