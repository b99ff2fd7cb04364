// The tests' workflow bundle entry: every app's profiles, and the plumbing and bare workflows.
import { combineDefinitions, defineAgentRun } from '../../src/core/index.js';
import { benchDefinition } from '../../apps/bench/workflow/definition.js';
import { showcaseDefinition } from '../../apps/showcase/workflow/definition.js';

export const agentRun = defineAgentRun(combineDefinitions(showcaseDefinition, benchDefinition));
export { plumbingWorkflow } from '../../bench/workflows/plumbing-workflow.js';
export { bareSteps } from '../../bench/workflows/bare-steps.js';
