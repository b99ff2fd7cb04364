import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Refund } from '../../apps/refund/business/refund-types.js';
import { startAgentRun } from '../../src/client/start-run.js';
import type { AgentRunInput } from '../../src/contract/run-input.js';
import { AgentStatusKey } from '../../src/contract/visibility.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { decide } from '../support/decisions.js';
import { refundRunInput } from '../support/harness.js';
import { testStartSigner } from '../support/principals.js';
import type { SoakOrder } from './soak-orders.js';

/** A person's reconciliation of a write the run could not settle by itself. */
export interface OperatorReconcile {
  readonly seq: number;
  readonly outcome: 'succeeded' | 'not_applied';
  readonly externalId?: string;
}

/** What the driver saw of one run, start to end. */
export interface SoakRunRecord {
  readonly workflowId: string;
  readonly order: SoakOrder;
  /** Signed approvals sent (one per pending confirmation). */
  approvals: number;
  /** Reconciliations sent as an operator (the run waited in `unknown_write_outcome`). */
  readonly operatorReconciles: OperatorReconcile[];
  /** The workflow execution closed within the driver's deadline. */
  closed: boolean;
  /** The run's own result, when it returned one. */
  status?: string;
  outcome?: string;
  terminalCode?: string;
  /** The workflow failed, was terminated or timed out instead of returning a result. */
  workflowError?: string;
  /** The run's status (search attribute) when the driver gave up on it. */
  lastStatus?: string;
}

export interface StartSoakRunOptions {
  readonly client: Client;
  readonly taskQueue: string;
  readonly workflowId: string;
  readonly order: SoakOrder;
  /** Per-run overrides of the run input (activity timeouts). */
  readonly input: Partial<AgentRunInput>;
}

export interface WatchSoakRunOptions {
  /** Give up watching the run after this many ms (it stays open and is counted as such). */
  readonly timeoutMs: number;
  /** How the operator looks a refund up in the business system (by idempotency key). */
  readonly findRefundByKey: (key: string) => Promise<Refund | undefined>;
  readonly pollMs?: number;
}

/** A started run and what the driver saw of it so far. */
export interface SoakRun {
  readonly handle: WorkflowHandle;
  readonly record: SoakRunRecord;
  /** Pending actions already decided (by action id): each is decided once. */
  readonly decided: Set<string>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The `state` query, or undefined while no worker answers. */
async function stateOf(handle: WorkflowHandle): Promise<RunView | undefined> {
  try {
    return await handle.query<RunView>('state');
  } catch {
    return undefined;
  }
}

/**
 * Start one `refund.graph@v1` run for `order`.
 * @throws when the run cannot be started (the Temporal frontend refused it).
 */
export async function startSoakRun(o: StartSoakRunOptions): Promise<SoakRun> {
  const input = refundRunInput({
    task: {
      message: `refund ${o.order.orderId} please, it has not shipped`,
      customerId: o.order.customerId,
    },
    ...o.input,
  });
  const signer = testStartSigner(input);
  const handle = await startAgentRun(o.client, {
    taskQueue: o.taskQueue,
    workflowId: o.workflowId,
    input,
    ...(signer !== undefined ? { signer } : {}),
  });
  return {
    handle,
    decided: new Set(),
    record: { workflowId: o.workflowId, order: o.order, approvals: 0, operatorReconciles: [], closed: false },
  };
}

/** Decide what the run waits for, if anything: its approval, or an operator's reconciliation. */
async function decidePending(run: SoakRun, o: WatchSoakRunOptions): Promise<void> {
  const { handle, record, decided } = run;
  const view = await stateOf(handle);
  const pending = view?.pendingAction;
  if (view === undefined || !pending || decided.has(pending.actionId)) return;
  if (pending.kind === 'confirmation' && view.status === 'awaiting_confirmation') {
    await decide(handle, 'approve', {}, view);
    decided.add(pending.actionId);
    record.approvals++;
  } else if (pending.kind === 'reconcile' && pending.invocationSeq !== undefined) {
    const seq = pending.invocationSeq;
    const refund = await o.findRefundByKey(`${record.workflowId}/${seq}`);
    const found = refund !== undefined && refund.orderId === record.order.orderId;
    const reconcile: OperatorReconcile = found
      ? { seq, outcome: 'succeeded', externalId: refund.id }
      : { seq, outcome: 'not_applied' };
    await decide(
      handle,
      'reconcile',
      {
        invocationSeq: seq,
        outcome: reconcile.outcome,
        ...(reconcile.externalId !== undefined ? { externalId: reconcile.externalId } : {}),
        evidence: { checked: 'refunds by idempotency key', found },
      },
      view,
    );
    decided.add(pending.actionId);
    record.operatorReconciles.push(reconcile);
  }
}

/**
 * See a started run through: approve its confirmation (signed, once per pending action), and when it
 * waits for a person to reconcile a write (`unknown_write_outcome`), do what an operator does: look
 * the refund up under the call's idempotency key (`<workflowId>/<seq>`) and send a signed `reconcile`
 * (`succeeded` with the refund id when a refund of this order is there, `not_applied` when none is).
 * Watches the run's `AgentStatus` search attribute (no worker needed) and asks the `state` query
 * only when a decision may be due. May be called again for a run it gave up on.
 *
 * Never throws for the run's own failures: they are recorded in the returned record. A run still open
 * after `timeoutMs` is returned with `closed: false`.
 */
export async function watchSoakRun(run: SoakRun, o: WatchSoakRunOptions): Promise<SoakRunRecord> {
  const { handle, record } = run;
  const deadline = Date.now() + o.timeoutMs;
  while (Date.now() < deadline) {
    let status: string | undefined;
    try {
      const description = await handle.describe();
      if (description.status.name !== 'RUNNING') {
        record.closed = true;
        break;
      }
      status = description.typedSearchAttributes.get(AgentStatusKey);
    } catch {
      await sleep(o.pollMs ?? 1000);
      continue;
    }
    record.lastStatus = status;
    if (status === 'awaiting_confirmation' || status === 'awaiting_human') {
      try {
        await decidePending(run, o);
      } catch {
        // the signal did not go through (frontend busy): the next poll decides again
      }
    }
    await sleep(o.pollMs ?? 1000);
  }
  if (!record.closed) return record;
  try {
    const result = (await handle.result()) as AgentRunResult;
    record.status = result.status;
    record.outcome = (result.output as { outcome?: string } | null)?.outcome ?? '(none)';
    record.terminalCode = result.terminalReason?.code;
  } catch (err) {
    record.workflowError = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  }
  return record;
}
