import { resolve } from 'node:path';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { projectRoot } from '../devserver/config.js';

/** Entry point of the workflow sandbox bundle. */
export const workflowsPath = resolve(projectRoot, 'src', 'workflows', 'index.ts');

/**
 * Bundle the workflow code once (webpack). Tests and benchmarks bundle once per run and hand the
 * bundle to every worker, so workers start fast and every arm runs identical code.
 */
export async function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
}
