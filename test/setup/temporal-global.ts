import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { projectRoot } from '../../src/devserver/config.js';
import { resolveTemporal } from '../../src/devserver/temporal-target.js';
import { bundleWorkflows } from '../../src/worker/bundle.js';
import { testWorkflowsPath } from '../support/workflows-path.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalNamespace: string;
    temporalUiUrl: string;
    workflowBundlePath: string;
  }
}

/**
 * One Temporal server for the whole test run (the dev server of temporal-dev.yml, reused when it is
 * already up, or TEMPORAL_ADDRESS), and the workflow code bundled once for every test file's workers.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = (line: string): void => console.error(`[temporal] ${line}`);
  const target = await resolveTemporal({ log });
  log(`using ${target.mode} server at ${target.connectionOptions.address}`);
  const bundle = await bundleWorkflows({ workflowsPath: testWorkflowsPath });
  const dir = join(projectRoot, '.data', 'test');
  mkdirSync(dir, { recursive: true });
  const bundlePath = join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  project.provide('temporalAddress', target.connectionOptions.address);
  project.provide('temporalNamespace', target.namespace);
  project.provide('temporalUiUrl', target.uiUrl ?? '');
  project.provide('workflowBundlePath', bundlePath);
  return async () => {
    await target.stop();
  };
}
