import { TEST_KEYS, writeKeyFile } from './principals.js';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from './harness.js';
import { runCli, type CliResult } from '../e2e/cli-support.js';

/**
 * The rig of the harness CLI tests (test/e2e/cli*.test.ts): a real worker (the harness fixture) on a
 * private task queue with temp stores, and the env through which `harness` processes reach them.
 * `h`, `env` and `customerKey` are live bindings set by the `beforeAll` that `useCliHarness()`
 * registers (its `afterAll` closes the fixture), so they are valid only inside that describe's tests.
 */
export const REFUND_TASK = JSON.stringify({
  message: 'My order ORD-1001 has not shipped for days, please refund',
  customerId: 'C1001',
});
export const REFUSED_TASK = JSON.stringify({ message: 'refund ORD-2001 please', customerId: 'C1001' });

export function json<T>(r: CliResult): T {
  return JSON.parse(r.stdout) as T;
}

export let h: HarnessFixture;
export let env: NodeJS.ProcessEnv;
/** The customer's key file: refund runs are signed for C1001 (an unsigned refund run is refused). */
export let customerKey: string;
const ids: string[] = [];
export const id = (name: string): string => {
  const value = `cli-${name}-${Date.now()}-${ids.length}`;
  ids.push(value);
  return value;
};
export const cli = (...args: string[]): Promise<CliResult> => runCli(args, env);
export const state = (workflowId: string): Promise<RunView> =>
  h.t.client.workflow.getHandle(workflowId).query<RunView>('state');
export const startWaiting = async (name: string): Promise<string> => {
  const workflowId = id(name);
  const r = await cli(
    'start',
    'refund.graph',
    '--input',
    REFUND_TASK,
    '--id',
    workflowId,
    '--key',
    customerKey,
    '--json',
  );
  expect(r.code, r.stderr).toBe(0);
  await waitForState(h.t.client.workflow.getHandle(workflowId), (v) => v.status === 'awaiting_confirmation');
  return workflowId;
};

/** Registers the hooks that start the fixture and write the key files before the tests, and close it after. */
export function useCliHarness(): void {
  beforeAll(async () => {
    h = await createHarnessFixture('cli');
    env = {
      HARNESS_TASK_QUEUE: h.taskQueue,
      HARNESS_STORE_URL: `sqlite:${join(h.dir, 'evidence.db')}`,
      HARNESS_REFUND_DB: join(h.dir, 'refund.db'),
      HARNESS_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      // The operator's signing key (a registered refund approver and operator).
      HARNESS_KEY: writeKeyFile(TEST_KEYS.ops, h.dir),
    };
    customerKey = writeKeyFile(TEST_KEYS.customer, h.dir);
  });
  afterAll(async () => {
    await h?.close();
  });
}
