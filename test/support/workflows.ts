// The tests' workflow bundle entry: the benchmark's workflows (every app's profiles, the plumbing and
// bare workflows) plus the test-only graph profile, bundled once per test run by the global setup.
import { defineAgentRun } from '../../src/core/index.js';
import { testBundleDefinition } from './workflow/test-bundle-definition.js';

export const agentRun = defineAgentRun(testBundleDefinition);
export { plumbingWorkflow } from '../../bench/workflows/plumbing-workflow.js';
export { bareSteps } from '../../bench/workflows/bare-steps.js';

import { makeContinueAsNewFunc } from '@temporalio/workflow';

/**
 * Test only: continue as new into `agentRun` with `carried` state, as an earlier generation of a run
 * would (a run accepts carried state only from its own continue-as-new).
 */
export async function continueIntoAgentRun(input: unknown, carried: unknown): Promise<never> {
  return makeContinueAsNewFunc<(input: unknown, carried: unknown) => Promise<unknown>>({
    workflowType: 'agentRun',
  })(input, carried);
}
