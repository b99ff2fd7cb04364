import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundleWithSourceMap } from '@temporalio/worker';

/** A module of this package by its path from here: the `.ts` source in a clone, the `.js` build once packed. */
function ownModule(relativeWithoutExtension: string): string {
  const ts = fileURLToPath(new URL(`${relativeWithoutExtension}.ts`, import.meta.url));
  return existsSync(ts) ? ts : fileURLToPath(new URL(`${relativeWithoutExtension}.js`, import.meta.url));
}

/**
 * Modules evaluated once per worker and shared by every workflow run in its reused V8 context (the SDK
 * deep-freezes them). Only pure modules whose state is a cache qualify: zod itself, with its global
 * config set before the freeze (src/workflows/temporal/preloaded-zod.ts); the argument validator keeps
 * compiled ajv validators by canonical schema, so a run does not compile its tools' schemas again;
 * Ed25519 builds its curve tables once instead of once per run (src/workflows/authz/ed25519.ts); the
 * schemas every run parses (its input, its budget, its guardrail settings) are built once
 * (src/contract/shared-across-runs.ts).
 */
export const preloadedModules = [
  ownModule('../workflows/temporal/preloaded-zod'),
  ownModule('../registry/argument-validator'),
  ownModule('../workflows/authz/ed25519'),
  ownModule('../contract/shared-across-runs'),
];

/** Workflow interceptors of a traced bundle (OpenTelemetry, see docs/observability.md). */
export const tracingInterceptorsPath = ownModule('../workflows/temporal/tracing-interceptors');

export interface BundleOptions {
  /** The app's workflows module: exports `agentRun = defineAgentRun(...)` (and any other workflows). */
  readonly workflowsPath: string;
  /**
   * Include the OpenTelemetry workflow interceptors. Off by default: the untraced bundle is exactly the
   * workflow code. A traced bundle adds no commands or markers, so either bundle replays any history.
   */
  readonly tracing?: boolean;
}

/**
 * The JavaScript the workflow code's TypeScript is compiled to when bundled: ES2022, as the package's
 * own build (tsconfig.json) and every supported Node (>= 20.3). The SDK's bundler compiles `.ts`
 * outside node_modules (an app's workflow modules; this package's sources in a clone, tests and
 * benchmarks) to ES2017, where every object spread and rest (the runner builds its state, events and
 * inputs with them) is a helper call; natively they cost a fraction of that per step (BENCHMARKS.md,
 * "Where the harness's CPU per step goes"). Class fields keep the same (define) semantics either
 * way, so the same code makes the same commands: committed histories replay under this bundle
 * (test/replay/replay.test.ts; test/unit/worker/workflow-target.test.ts compiles class fields that
 * shadow base accessors, uninitialised and `declare` fields and decorators at both targets).
 * Every bundle the package makes goes through {@link bundleWorkflows} (createHarnessWorker without a
 * bundle, `harness replay`, `harness metrics`, the test setups, the benchmarks). A bundle made with
 * the SDK's `bundleWorkflowCode` directly (a `HARNESS_WORKFLOW_BUNDLE` an operator builds that way;
 * test/faults/patched-upgrade.test.ts's two builds; bench/tools/dispatch-latency.ts) is ES2017: the
 * same commands, slower spreads.
 */
export const WORKFLOW_TARGET = 'es2022';

interface SwcRule {
  readonly use?: { readonly loader?: string; readonly options?: { jsc?: { target?: string } } };
}

/**
 * The SDK's webpack configuration with its TypeScript loader (swc) compiling to
 * {@link WORKFLOW_TARGET}.
 * @throws Error when the configuration has no swc rule (an SDK whose bundler changed shape): the
 *   bundle would silently fall back to the slower target, so it is refused instead.
 */
export function withWorkflowTarget<C extends { module?: { rules?: unknown[] } }>(config: C): C {
  const rule = config.module?.rules?.find(
    (r): r is SwcRule =>
      typeof (r as SwcRule)?.use?.loader === 'string' && (r as SwcRule).use!.loader!.includes('swc-loader'),
  );
  const jsc = rule?.use?.options?.jsc;
  if (!jsc) throw new Error('the SDK bundler has no swc-loader rule to set the workflow target on');
  jsc.target = WORKFLOW_TARGET;
  return config;
}

/**
 * Bundle the workflow code once (webpack). Tests and benchmarks bundle once per run and hand the
 * bundle to every worker, so workers start fast and every arm runs identical code.
 */
export async function bundleWorkflows(o: BundleOptions): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: o.workflowsPath,
    workflowInterceptorModules: o.tracing ? [tracingInterceptorsPath] : [],
    preloadModules: preloadedModules,
    logger: new DefaultLogger('WARN'),
    webpackConfigHook: withWorkflowTarget,
  });
}
