import { readFileSync } from 'node:fs';
import vm from 'node:vm';

/** What evaluating a workflow bundle's modules once builds, as {@link countModuleSchemas} counts it. */
export interface BundleEvaluation {
  /** Zod schema instances built while the bundle's modules were evaluated (one run's worth). */
  readonly schemas: number;
  /** The same count by module (webpack module id, e.g. `./src/contract/run-input.ts`), largest first. */
  readonly byModule: ReadonlyArray<readonly [string, number]>;
}

/** webpack's module call in the Temporal bundle; the counter wraps it. */
const MODULE_CALL =
  '__webpack_modules__[moduleId].call(module.exports, module, module.exports, __webpack_require__);';

/**
 * Evaluate the workflow bundle at `bundlePath` the way the Temporal sandbox does for every new run
 * (`importWorkflows()` against an empty module cache) in a plain V8 context, and count the zod
 * schemas built meanwhile (zod 4 calls `globalThis.__zod_globalConfig.postProcessor` once for every
 * instance it constructs). Deterministic: a count, not a time. Throws when the bundle's layout is not
 * the one expected (the count would be meaningless).
 */
export function countModuleSchemas(bundlePath: string): BundleEvaluation {
  const source = readFileSync(bundlePath, 'utf8');
  if (!source.includes(MODULE_CALL)) throw new Error(`unexpected bundle layout: ${bundlePath}`);
  let count = 0;
  const self = new Map<string, number>();
  const stack: { id: string; start: number; nested: number }[] = [];
  const tracker = {
    enter(id: string) {
      stack.push({ id, start: count, nested: 0 });
    },
    exit() {
      const frame = stack.pop()!;
      const total = count - frame.start;
      self.set(frame.id, (self.get(frame.id) ?? 0) + total - frame.nested);
      const parent = stack[stack.length - 1];
      if (parent) parent.nested += total;
    },
  };
  const code = source.replace(
    MODULE_CALL,
    `globalThis.__moduleTracker.enter(moduleId); try { ${MODULE_CALL} } finally { globalThis.__moduleTracker.exit(); }`,
  );
  const context = vm.createContext({
    __moduleTracker: tracker,
    __webpack_module_cache__: {},
    __zod_globalConfig: { postProcessor: () => void (count += 1) },
    TextEncoder,
    TextDecoder,
    URL,
    URLSearchParams,
  });
  vm.runInContext(code, context);
  (context as { __TEMPORAL__: { importWorkflows(): unknown } }).__TEMPORAL__.importWorkflows();
  return {
    schemas: count,
    byModule: [...self].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]),
  };
}
