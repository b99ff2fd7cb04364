// The tests' workflow bundle entry: the benchmark's workflows (every app's profiles, the plumbing and
// bare workflows) plus the test-only graph profile, bundled once per test run by the global setup.
import { defineAgentRun } from '../../src/core/index.js';
import { testBundleDefinition } from './workflow/test-bundle-definition.js';

export const agentRun = defineAgentRun(testBundleDefinition);
export { plumbingWorkflow } from '../../bench/workflows/plumbing-workflow.js';
export { bareSteps } from '../../bench/workflows/bare-steps.js';
