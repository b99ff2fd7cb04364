import { resolve } from 'node:path';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { projectRoot } from '../devserver/config.js';

/** Entry point of the workflow sandbox bundle. */
export const workflowsPath = resolve(projectRoot, 'src', 'workflows', 'index.ts');

/**
 * Modules evaluated once per worker and shared by every workflow run in its reused V8 context (the SDK
 * deep-freezes them). Only pure modules whose state is a cache qualify: the argument validator keeps
 * compiled ajv validators by canonical schema, so a run does not compile its tools' schemas again.
 */
export const preloadedModules = [resolve(projectRoot, 'src', 'registry', 'argument-validator.ts')];

/** Workflow interceptors of a traced bundle (OpenTelemetry, see docs/observability.md). */
export const tracingInterceptorsPath = resolve(projectRoot, 'src', 'telemetry', 'workflow-interceptors.ts');

export interface BundleOptions {
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
export async function bundleWorkflows(o: BundleOptions = {}): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: o.tracing ? [tracingInterceptorsPath] : [],
    preloadModules: preloadedModules,
    logger: new DefaultLogger('WARN'),
  });
}
