/**
 * A function that runs `build` on its first call and returns that value on every later call.
 *
 * For values that cost CPU to build and are not needed by every run, above all zod schemas: the
 * workflow sandbox evaluates every module of the bundle again for every run (a fresh module instance
 * per run), so a value built at module level is built for each run, whether the run uses it or not
 * (docs/history-cost.md, "CPU per run"). A schema that is only parsed needs no helper: `z.lazy(() =>
 * ...)` builds it on its first parse and keeps it. This is for the rest: a shape of fields other
 * schemas spread, an object schema whose `.extend`/`.partial` a caller needs, a compiled policy.
 *
 * Deterministic (no time, no randomness). A throw from `build` reaches the caller and the next call
 * tries again. For an immutable value every run builds (the run input's schema), see
 * `sharedAcrossRuns`: built once per worker instead of once per run.
 */
export function builtOnFirstUse<T>(build: () => T): () => T {
  let built = false;
  let value: T | undefined;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}
