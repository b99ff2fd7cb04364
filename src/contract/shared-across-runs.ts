/**
 * Values built once per worker and shared by every workflow run, for immutable values that every run
 * builds: the schemas of the run input, of the guardrail settings, of a policy's decision and of the
 * completion evaluators' params and verdicts.
 *
 * The workflow sandbox evaluates every module again for every run, so even a value built on first use
 * ({@link builtOnFirstUse}) is built once per run. This module is preloaded (src/worker/bundle.ts
 * `preloadedModules`): the SDK evaluates it once per worker's V8 context and shares it with every run.
 * The SDK deep-freezes what a preloaded module exports; the values kept here are held in this module's
 * closure, out of reach of that freeze, so a zod schema can still define its methods on first use.
 * Outside the sandbox (a worker process, a client, a test) it is a plain process-wide cache.
 *
 * Only for values that are immutable once built and depend on nothing but their code: a zod schema
 * qualifies (parsing is pure; its lazily derived internals are the same whichever run derives them).
 * Never for anything a run changes, or that holds run data: every run of the worker would see it.
 * Deterministic: every run gets a value equal to the one it would build itself.
 *
 * @param key unique per value (by convention the module path and the value's name); two different
 *   builders under one key would share the first one's value.
 * @returns a function that builds the value on its first call in this worker, then returns it. A throw
 *   from `build` reaches the caller and the next call tries again.
 */
export function sharedAcrossRuns<T>(key: string, build: () => T): () => T {
  return () => {
    if (shared.has(key)) return shared.get(key) as T;
    const value = build();
    shared.set(key, value);
    return value;
  };
}

/** Built values by key: module state, never exported (so the SDK's freeze of preloaded modules skips it). */
const shared = new Map<string, unknown>();
