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
 * Bundle the workflow code once (webpack). Tests and benchmarks bundle once per run and hand the
 * bundle to every worker, so workers start fast and every arm runs identical code.
 */
export async function bundleWorkflows(o: BundleOptions): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: o.workflowsPath,
    workflowInterceptorModules: o.tracing ? [tracingInterceptorsPath] : [],
    preloadModules: preloadedModules,
    logger: new DefaultLogger('WARN'),
  });
}
