import { proxyActivities } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(k: number): Promise<number> }>({ startToCloseTimeout: '10 seconds' });

/** `n` activities one after another: each step is a workflow task and an activity task. */
export async function dispatchSteps(n: number): Promise<number> {
  let k = 0;
  for (let i = 0; i < n; i++) k = await noop(k);
  return k;
}
