import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { inject } from 'vitest';
import { startAgentRun } from '../../src/client/start-run.js';
import { type RefundComposition } from '../../apps/refund/composition.js';
import {
  createShowcaseComposition,
  type ShowcaseCompositionOptions,
} from '../../apps/showcase/composition.js';
import { registerBenchTools } from '../../apps/bench/bench-noop-tool.js';
import { TEST_PRINCIPALS, testStartSigner } from './principals.js';
import { refundDrillsFromEnv } from './refund-drills.js';
import type { AgentRunInput } from '../../src/contract/run-input.js';
import { createHarnessWorker, type HarnessWorkerOptions } from '../../src/worker/harness-worker.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { connectTestTemporal, startWorker, uniqueTaskQueue, type TestTemporal } from './temporal.js';
import { testRunId } from './run-id.js';
import type { ChainHeadSigner } from '../../src/activities/attestation/chain-head-signer.js';

/** A real worker with a fresh composition (temp SQLite evidence + business stores) on the shared server. */
export interface HarnessFixture {
  readonly t: TestTemporal;
  readonly composition: RefundComposition;
  readonly taskQueue: string;
  readonly dir: string;
  /**
   * Start a run of {@link refundRunInput}, signed as {@link testStartSigner} says (the `userId`'s own
   * test key, else the test delegate for a `userId` in a `tenantId`, else the key of the task's
   * `customerId` when that is a test person); `{ unsigned: true }` starts it unsigned (an anonymous run).
   */
  start(
    input: Partial<AgentRunInput> & Pick<AgentRunInput, 'task'>,
    workflowId?: string,
    o?: FixtureStartOptions,
  ): Promise<WorkflowHandle>;
  close(): Promise<void>;
}

/** How a fixture starts a run. */
export interface FixtureStartOptions {
  /** Start without a start token (an anonymous run), whatever the input's `userId` says. */
  readonly unsigned?: boolean;
}

/**
 * The input of a `refund.graph@v1` run on the scripted refund route, with `input` on top. It names no
 * policy (each profile's default applies) and pins no tools or config: the run pins them from the worker that serves its start.
 */
export function refundRunInput(input: Partial<AgentRunInput> & Pick<AgentRunInput, 'task'>): AgentRunInput {
  return {
    schemaVersion: 1,
    profile: { name: 'refund.graph', version: 'v1' },
    modelRoute: 'scripted/refund',
    ...input,
  };
}

export async function createHarnessFixture(
  name: string,
  options: Partial<Omit<ShowcaseCompositionOptions, 'refundStorePath'>> = {},
  worker: Pick<HarnessWorkerOptions, 'workflowBundle' | 'tracing' | 'payloadCodec'> & {
    /** The worker's attestation key: its event flushes return signed chain heads (docs/evidence-chain.md). */
    readonly attestation?: ChainHeadSigner;
  } = {},
): Promise<HarnessFixture> {
  const dir = mkdtempSync(join(tmpdir(), `harness-${name}-`));
  const t = await connectTestTemporal();
  const composition = await createShowcaseComposition({
    storeUrl: `sqlite:${join(dir, 'evidence.db')}`,
    refundStorePath: join(dir, 'refund.db'),
    env: {},
    principals: TEST_PRINCIPALS,
    ...options,
    // Drill knobs (store latency, no reconciler) come from the test's env, as for worker processes.
    drills: options.drills ?? refundDrillsFromEnv(options.env ?? {}),
    // The tests' bundle has the bench profile too; its tool lives in test and bench compositions only.
    extend: [(registry) => registerBenchTools(registry), ...(options.extend ?? [])],
  });
  if (worker.attestation) Object.assign(composition, { attestation: worker.attestation });
  const { attestation: _attestation, ...workerOptions } = worker;
  const taskQueue = uniqueTaskQueue(name);
  const stop = startWorker(
    await createHarnessWorker({
      connection: t.nativeConnection,
      namespace: t.namespace,
      taskQueue,
      composition,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      ...workerOptions,
    }),
  );
  return {
    t,
    composition,
    taskQueue,
    dir,
    start: (input, workflowId, o = {}) => {
      const signer = o.unsigned ? undefined : testStartSigner(input);
      return startAgentRun(t.client, {
        taskQueue,
        workflowId: workflowId ?? testRunId(name),
        input: refundRunInput(input),
        ...(signer !== undefined ? { signer } : {}),
      });
    },
    close: async () => {
      await stop();
      await composition.close();
      await t.close();
    },
  };
}

/** Poll the `state` query until `predicate` holds (or time out with the last view in the message). */
export async function waitForState(
  handle: WorkflowHandle,
  predicate: (v: RunView) => boolean,
  timeoutMs = 30_000,
): Promise<RunView> {
  const deadline = Date.now() + timeoutMs;
  let last: RunView | undefined;
  while (Date.now() < deadline) {
    try {
      last = await handle.query<RunView>('state');
      if (predicate(last)) return last;
    } catch {
      /* not started yet */
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for state; last: ${JSON.stringify(last)?.slice(0, 2000)}`);
}

/** Event type names of a workflow's history, e.g. ACTIVITY_TASK_SCHEDULED. */
export async function historyEventTypes(handle: WorkflowHandle): Promise<string[]> {
  const { temporal } = (await import('@temporalio/proto')).default;
  const history = await handle.fetchHistory();
  return (history.events ?? []).map(
    (e) => temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType),
  );
}
