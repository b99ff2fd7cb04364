import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type * as plumbingActivities from '../lib/plumbing-activities.js';

const { greet } = proxyActivities<typeof plumbingActivities>({ startToCloseTimeout: '10 seconds' });

/** Signal that lets a plumbing run finish. */
export const proceedSignal = defineSignal<[{ note: string }]>('proceed');

/**
 * The smallest end-to-end check of the stack: one activity, one signal round trip. Used by the
 * foundation tests and the benchmarks' bare arm; not part of the agent runtime.
 */
export async function plumbingWorkflow(input: { name: string }): Promise<{ greeting: string; note: string }> {
  let note: string | undefined;
  setHandler(proceedSignal, (s) => {
    note = s.note;
  });
  const greeting = await greet(input.name);
  await condition(() => note !== undefined);
  return { greeting, note: note! };
}
