// The benchmark's workflow bundle entry: the showcase and bench profiles, and the bare arm's workflows.
import { defineAgentRun } from '../../src/workflows/index.js';
import { benchBundleDefinition } from './definition.js';

export const agentRun = defineAgentRun(benchBundleDefinition);
export { plumbingWorkflow } from './plumbing-workflow.js';
export { bareSteps } from './bare-steps.js';
