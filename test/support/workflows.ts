// The tests' workflow bundle entry: the same workflows as the benchmark's (every app's profiles, the
// plumbing and bare workflows), bundled once per test run by the global setup.
export { agentRun, bareSteps, plumbingWorkflow } from '../../bench/workflows/index.js';

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
