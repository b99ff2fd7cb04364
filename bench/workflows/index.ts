// The benchmark's workflow bundle entry: the showcase and bench profiles, and the bare arm's workflows.
import { combineDefinitions, defineAgentRun } from '../../src/core/index.js';
import { showcaseDefinition } from '../../apps/showcase/workflow/definition.js';
import { benchDefinition } from '../../apps/bench/workflow/definition.js';

export const agentRun = defineAgentRun(combineDefinitions(showcaseDefinition, benchDefinition));
export { plumbingWorkflow } from './plumbing-workflow.js';
export { bareSteps } from './bare-steps.js';
