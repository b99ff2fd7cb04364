// The tests' workflow bundle entry: the benchmark's workflows (every app's profiles, the plumbing and
// bare workflows) plus the test-only graph profile, bundled once per test run by the global setup.
import { defineAgentRun } from '../../src/workflows/index.js';
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

import { config, z, ZodType } from 'zod';

/**
 * Test only: what zod looks like inside the sandbox. A worker preloads zod (src/workflows/temporal/
 * preloaded-zod.ts): one frozen copy shared by every run, jitless, its global config fixed.
 */
export function sandboxZod(): Promise<{
  frozen: boolean;
  jitless: boolean;
  parsed: unknown;
  refused: string;
  configRefused: string;
}> {
  const schema = z.strictObject({ amount: z.number().int().positive(), note: z.string().optional() });
  const refused = schema.safeParse({ amount: -1, extra: true });
  let configRefused = '';
  try {
    config({ customError: () => 'mine' });
  } catch (err) {
    configRefused = (err as Error).name;
  }
  return Promise.resolve({
    frozen: Object.isFrozen(ZodType),
    jitless: config().jitless === true,
    parsed: schema.parse({ amount: 5, note: 'ok' }),
    refused: refused.success ? '' : refused.error.issues.map((i) => i.code).join(','),
    configRefused,
  });
}
