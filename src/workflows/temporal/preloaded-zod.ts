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
 * `z.config(...)` throws a `TypeError` (the object is frozen); `TypeError` is a failure type of
 * `agentRun`, so the run fails (at a module's top level it fails the workflow task instead, retried).
 * Set what you need here instead. Workflow code must import this one zod (one copy in the app's
 * dependency tree): another copy would meet the frozen config too. `z.globalRegistry` (`.meta()`,
 * `.describe()`) is one registry shared by every run of the worker: do not register schema ids in
 * workflow code.
 */
config({ jitless: true });
// Every schema class workflow code uses, built and parsed once here: zod installs a class's members on
// its first instance, so no run does it on the shared copy (and none is cut off halfway by a timeout).
z.strictObject({
  s: z
    .string()
    .min(1)
    .max(9)
    .regex(/^[a-z]+$/),
  n: z.number().int().nonnegative(),
  b: z.boolean(),
  a: z.array(z.string()).max(3),
  e: z.enum(['x', 'y']),
  l: z.literal('l'),
  r: z.record(z.string(), z.unknown()),
  p: z.partialRecord(z.enum(['x']), z.number()),
  u: z.union([z.string(), z.number()]),
  d: z.discriminatedUnion('k', [z.object({ k: z.literal('a') }), z.object({ k: z.literal('b') })]),
  t: z.tuple([z.string()]),
  o: z.string().optional(),
  nl: z.string().nullable(),
  df: z.number().default(1),
  lz: z.lazy(() => z.string()),
  c: z.custom<string>((v) => typeof v === 'string'),
  x: z.unknown(),
  y: z.any(),
})
  .partial()
  .safeParse({ s: 'up', n: 1, b: true, a: [], e: 'x', l: 'l', r: {}, p: {}, u: 1, d: { k: 'a' }, t: ['t'] });
