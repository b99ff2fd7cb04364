import { config, z } from 'zod';

/**
 * Zod, evaluated once per worker and shared by every workflow run of its reused V8 context (the
 * worker preloads this module: src/worker/bundle.ts `preloadedModules`). Without it the sandbox
 * evaluates zod's modules again for every run and every replay, and every run's schemas start on
 * fresh, cold copies of zod's functions: about 10 ms of CPU per 1-step run (docs/history-cost.md,
 * "CPU per run").
 *
 * The SDK deep-freezes a preloaded module's exports, zod's global config among them. So everything
 * zod sets lazily is set here, before the freeze: jitless parsing (see sandbox-zod.ts), and the
 * default locale and memoizer zod sets when it builds its first schema.
 *
 * Failure semantics: inside the sandbox zod's global config is then fixed. Workflow code that calls
 * `z.config(...)` throws a `TypeError` (the object is frozen), which fails that workflow task; set
 * what you need here instead. `z.globalRegistry` (`.meta()`, `.describe()`) is one registry shared
 * by every run of the worker: do not register schema ids in workflow code.
 */
config({ jitless: true });
z.object({ warm: z.string() }).safeParse({ warm: 'up' });
