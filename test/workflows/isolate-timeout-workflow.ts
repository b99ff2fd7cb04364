import { CancellationScope } from '@temporalio/workflow';

/**
 * Test workflow (bundled by isolate-timeout-worker.ts): one activation that holds the workflow
 * thread for `ms` of wall time while it runs microtasks inside a cancellation scope (the SDK's
 * AsyncLocalStorage is on), as a long activation of a real run does under load. `Atomics.wait`
 * blocks without burning CPU, so the duration does not depend on the machine's load.
 */
export async function holdActivation(ms: number): Promise<number> {
  return CancellationScope.cancellable(async () => {
    await Promise.resolve();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    return ms;
  });
}
