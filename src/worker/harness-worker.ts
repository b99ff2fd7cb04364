import type { NativeConnection, WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import { createModelActivities } from '../activities/model-activities.js';
import * as plumbing from '../activities/plumbing.js';
import { createRunActivities } from '../activities/run-activities.js';
import { createToolActivities } from '../activities/tool-activities.js';
import type { HarnessComposition } from '../composition/harness-composition.js';

export interface HarnessWorkerOptions {
  readonly connection: NativeConnection;
  readonly namespace: string;
  readonly taskQueue: string;
  readonly composition: HarnessComposition;
  /** A pre-built bundle (tests, benchmarks) or a path to bundle at start. */
  readonly workflowBundle?: WorkflowBundleWithSourceMap | { codePath: string };
  readonly maxCachedWorkflows?: number;
}

/** All activities of the harness, bound to a composition. */
export function harnessActivities(c: HarnessComposition) {
  return {
    ...plumbing,
    ...createRunActivities({ registry: c.registry, store: c.store }),
    ...createToolActivities({ registry: c.registry, store: c.store, identity: c.identity }),
    ...createModelActivities({ registry: c.registry, store: c.store, models: c.models }),
  };
}

/** A worker running `agentRun` (and the plumbing workflow) with the composition's activities. */
export async function createHarnessWorker(o: HarnessWorkerOptions): Promise<Worker> {
  const { bundleWorkflows } = await import('./bundle.js');
  return Worker.create({
    connection: o.connection,
    namespace: o.namespace,
    taskQueue: o.taskQueue,
    identity: o.composition.identity,
    workflowBundle: o.workflowBundle ?? (await bundleWorkflows()),
    activities: harnessActivities(o.composition),
    maxCachedWorkflows: o.maxCachedWorkflows,
  });
}
