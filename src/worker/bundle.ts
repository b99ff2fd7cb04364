import { resolve } from 'node:path';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { projectRoot } from '../devserver/config.js';

/** Entry point of the workflow sandbox bundle. */
export const workflowsPath = resolve(projectRoot, 'src', 'workflows', 'index.ts');

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
    logger: new DefaultLogger('WARN'),
  });
}
