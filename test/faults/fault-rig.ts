import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client, Connection, type ConnectionOptions, type WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { expect, inject } from 'vitest';
import { refundDrillsFromEnv } from '../support/refund-drills.js';
import { startAgentRun } from '../../src/client/start-run.js';
import { type RefundComposition } from '../../apps/refund/composition.js';
import { createShowcaseComposition } from '../../apps/showcase/composition.js';
import type { AgentRunInput } from '../../src/contract/run-input.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { refundRunInput, waitForState } from '../support/harness.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { historyOf, openActivities } from '../support/history.js';
import {
  startWorkerProcess,
  type WorkerProcess,
  type WorkerProcessOptions,
} from '../support/worker-process.js';
import { testStartSigner } from '../support/principals.js';
import { testRunId } from '../support/run-id.js';

/** One row of the refund business store, as the fault tests compare them. */
export interface RefundRow {
  readonly id: string;
  readonly order_id: string;
  readonly amount_cents: number;
  readonly idempotency_key: string;
  readonly status: string;
}

/**
 * The rows of the refund business store in `dir` (its `refund.db`), oldest first; only those made
 * under `idempotencyKey` when given.
 */
export function refundRowsIn(dir: string, idempotencyKey?: string): RefundRow[] {
  const db = new Database(join(dir, 'refund.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare('SELECT id, order_id, amount_cents, idempotency_key, status FROM refunds ORDER BY created_at')
      .all() as RefundRow[];
    return idempotencyKey === undefined ? rows : rows.filter((r) => r.idempotency_key === idempotencyKey);
  } finally {
    db.close();
  }
}

/**
 * Everything one fault test needs: a unique task queue, a temp folder with the SQLite evidence and
 * refund stores every worker process of the test shares, a client, and an in-process composition on
 * the same files (only to read the stores and compute the pinned digests; it runs no worker).
 */
export interface FaultRig {
  readonly taskQueue: string;
  readonly dir: string;
  readonly client: Client;
  readonly composition: RefundComposition;
  worker(options?: Partial<Omit<WorkerProcessOptions, 'taskQueue' | 'dir'>>): Promise<WorkerProcess>;
  start(
    input: Partial<AgentRunInput> & Pick<AgentRunInput, 'task'>,
    workflowId?: string,
  ): Promise<WorkflowHandle>;
  refundRows(): RefundRow[];
  close(): Promise<void>;
}

export interface FaultRigOptions {
  /** Environment the worker processes compose from (model provider settings); keeps configDigest equal. */
  readonly compositionEnv?: Readonly<Record<string, string>>;
  /** Temporal frontend (default: the shared test server). */
  readonly temporalAddress?: string;
  /** The rig's client connection, TLS included (default: plain `temporalAddress`); the real-server tier's mTLS. */
  readonly connection?: ConnectionOptions;
  /** Namespace (default: the shared test server's). */
  readonly namespace?: string;
  /** Evidence store of the rig and its workers (default: SQLite `evidence.db` in the rig's folder). */
  readonly storeUrl?: string;
  /** The workflow bundle its workers load (default: the one the global setup built). */
  readonly bundlePath?: string;
}

let runtimeInstalled = false;

/** Replays in the test process log warnings only. */
function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    /* another module of this process installed it */
  }
}

export async function createFaultRig(name: string, options: FaultRigOptions = {}): Promise<FaultRig> {
  installQuietRuntime();
  const dir = mkdtempSync(join(tmpdir(), `harness-fault-${name}-`));
  const taskQueue = uniqueTaskQueue(`fault-${name}`);
  const address = options.temporalAddress ?? inject('temporalAddress');
  const connection = await Connection.connect(options.connection ?? { address });
  const client = new Client({ connection, namespace: options.namespace ?? inject('temporalNamespace') });
  const storeUrl = options.storeUrl ?? `sqlite:${join(dir, 'evidence.db')}`;
  const composition = await createShowcaseComposition({
    storeUrl,
    refundStorePath: join(dir, 'refund.db'),
    env: { ...options.compositionEnv },
    drills: refundDrillsFromEnv({ ...options.compositionEnv }),
  });
  return {
    taskQueue,
    dir,
    client,
    composition,
    worker: (o = {}) =>
      startWorkerProcess({
        taskQueue,
        dir,
        temporalAddress: options.temporalAddress,
        ...(options.bundlePath !== undefined ? { bundlePath: options.bundlePath } : {}),
        ...o,
        env: {
          ...options.compositionEnv,
          ...(options.storeUrl !== undefined ? { HARNESS_STORE_URL: options.storeUrl } : {}),
          ...o.env,
        },
      }),
    start: (input, workflowId) => {
      // Signed as the fixtures sign (the workers trust TEST_PRINCIPALS): a run's requester is verified.
      const signer = testStartSigner(input);
      return startAgentRun(client, {
        taskQueue,
        workflowId: workflowId ?? testRunId(`fault-${name}`),
        input: refundRunInput(input),
        ...(signer !== undefined ? { signer } : {}),
      });
    },
    refundRows: () => refundRowsIn(dir),
    close: async () => {
      await composition.close();
      await connection.close();
    },
  };
}

/** The run's result, typed. */
export async function resultOf(
  handle: WorkflowHandle,
): Promise<AgentRunResult & { output: Record<string, unknown> }> {
  return (await handle.result()) as AgentRunResult & { output: Record<string, unknown> };
}

/**
 * Wait until the run waits in `status` AND its pause is settled: the events flushed before the pause
 * are recorded (no activity is open). Killing a worker earlier would lose that bookkeeping activity,
 * which Temporal retries only after its 1-minute start-to-close timeout.
 */
export async function waitForPause(handle: WorkflowHandle, status: RunView['status']): Promise<RunView> {
  const view = await waitForState(handle, (v) => v.status === status && v.pendingAction !== null, 90_000);
  await expect
    .poll(async () => openActivities(await historyOf(handle)), { timeout: 30_000, interval: 200 })
    .toBe(0);
  return view;
}
