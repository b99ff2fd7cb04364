import { userInfo } from 'node:os';
import type { WorkflowHandle } from '@temporalio/client';
import { SIGNAL_NAMES } from '../../../contract/signals.js';
import type { EvidenceStore } from '../../../worker/store/index.js';
import type { RunView } from '../../../core/workflow/run-view.js';
import { connectTemporal, describeRun, openCliStore, type CliTemporal } from '../connect.js';
import { EXIT, refusedError, usageError } from '../errors.js';
import type { Output } from '../output.js';
import { parsePositiveInt, readJsonObject } from '../read-json.js';
import { isClosed, lastEventSeq, queryState, readEvents, sleep } from '../run-access.js';

/** The default actor: the operating-system user running the CLI. */
export function defaultActor(): string {
  return `cli:${userInfo().username}`;
}

/** What happened to a decision signal. */
export interface DecisionReport {
  readonly workflowId: string;
  readonly signal: string;
  readonly payload: Record<string, unknown>;
  readonly accepted: boolean;
  readonly statusBefore: string;
  readonly statusAfter: string;
  /** Why the run rejected it: the `human.signal_rejected` event when stored, else what the CLI saw. */
  readonly rejection?: { code: string; message: string };
}

/**
 * Send a decision signal and find out whether the run took it: the `state` query is consistent with
 * the signal (a query is answered after the workflow task that handled it), so a changed status or
 * pending action means accepted; otherwise the run rejected it and recorded a `human.signal_rejected`
 * event (stored with the run's next write; shown here when already stored).
 */
async function sendDecision(
  t: CliTemporal,
  store: EvidenceStore,
  handle: WorkflowHandle,
  before: RunView,
  signal: string,
  payload: Record<string, unknown>,
  expectedRejection: (v: RunView) => { code: string; message: string },
): Promise<DecisionReport> {
  const seq = await lastEventSeq(store, handle.workflowId);
  await handle.signal(signal, payload);
  let after = before;
  for (let i = 0; i < 3; i++) {
    after = await queryState(t, handle);
    if (after.status !== before.status || after.pendingAction?.actionId !== before.pendingAction?.actionId) {
      return {
        workflowId: handle.workflowId,
        signal,
        payload,
        accepted: true,
        statusBefore: before.status,
        statusAfter: after.status,
      };
    }
    await sleep(300);
  }
  const stored = (await readEvents(store, handle.workflowId, seq)).find(
    (e) => e.type === 'human.signal_rejected' && e.data.signal === signal,
  );
  // The run lists refused signals in its state at once; the stored event may come later.
  const seen = (after.signalRejections ?? [])
    .slice((before.signalRejections ?? []).length)
    .filter((r) => r.signal === signal)
    .at(-1);
  const rejection = seen
    ? { code: seen.code, message: seen.message }
    : stored
      ? { code: String(stored.data.code), message: String(stored.data.message) }
      : expectedRejection(before);
  return {
    workflowId: handle.workflowId,
    signal,
    payload,
    accepted: false,
    statusBefore: before.status,
    statusAfter: after.status,
    rejection,
  };
}

function report(r: DecisionReport, out: Output): number {
  out.data(r);
  if (r.accepted) {
    out.line(`${r.signal} accepted by ${r.workflowId}: ${r.statusBefore} -> ${r.statusAfter}`);
    return EXIT.ok;
  }
  out.line(
    `${r.signal} rejected by ${r.workflowId} (status still ${r.statusAfter}): ${r.rejection?.code}: ${r.rejection?.message}`,
  );
  return EXIT.refused;
}

async function withRun<T>(
  id: string,
  fn: (t: CliTemporal, store: EvidenceStore, handle: WorkflowHandle, before: RunView) => Promise<T>,
): Promise<T> {
  const t = await connectTemporal();
  const store = await openCliStore();
  try {
    const handle = t.client.workflow.getHandle(id);
    const exec = await describeRun(handle);
    if (isClosed(exec.status))
      throw refusedError(`run ${id} is closed (${exec.status}); it takes no more signals`, {
        workflowId: id,
        executionStatus: exec.status,
      });
    return await fn(t, store, handle, await queryState(t, handle));
  } finally {
    await store.close();
    await t.close();
  }
}

function mismatch(action: string) {
  return (v: RunView) =>
    v.pendingAction && v.pendingAction.actionId !== action
      ? {
          code: 'signal.action_mismatch',
          message: `pending action is ${v.pendingAction.actionId}, not ${action}`,
        }
      : {
          code: 'signal.not_taken',
          message: 'the run did not take the decision; see `harness events` for the recorded rejection',
        };
}

function pendingActionOf(id: string, v: RunView, given: string | undefined): string {
  if (given) return given;
  if (!v.pendingAction || (v.pendingAction.kind !== 'confirmation' && v.pendingAction.kind !== 'human')) {
    throw refusedError(`run ${id} is not waiting for a decision (status ${v.status}); nothing sent`, {
      workflowId: id,
      status: v.status,
    });
  }
  return v.pendingAction.actionId;
}

export interface DecideOptions {
  readonly action?: string;
  readonly reason?: string;
  readonly actor?: string;
}

/** `harness approve <id>`: approve the pending action (or `--action`). Exit 5 when the run rejects it. */
export async function approveCommand(id: string, o: DecideOptions, out: Output): Promise<number> {
  return withRun(id, async (t, store, handle, before) => {
    const actionId = pendingActionOf(id, before, o.action);
    const payload = { actionId, actor: o.actor ?? defaultActor(), ...(o.reason ? { reason: o.reason } : {}) };
    return report(
      await sendDecision(t, store, handle, before, SIGNAL_NAMES.approve, payload, mismatch(actionId)),
      out,
    );
  });
}

/** `harness reject <id> --reason r`: reject the pending action (or `--action`). Exit 5 when the run rejects the signal. */
export async function rejectCommand(id: string, o: DecideOptions, out: Output): Promise<number> {
  if (!o.reason) throw usageError('--reason: required for reject', { option: '--reason' });
  const reason = o.reason;
  return withRun(id, async (t, store, handle, before) => {
    const actionId = pendingActionOf(id, before, o.action);
    const payload = { actionId, actor: o.actor ?? defaultActor(), reason };
    return report(
      await sendDecision(t, store, handle, before, SIGNAL_NAMES.reject, payload, mismatch(actionId)),
      out,
    );
  });
}

export interface ReconcileOptions {
  readonly invocation: string;
  readonly outcome: string;
  readonly externalId?: string;
  readonly evidence?: string;
  readonly actor?: string;
}

const OUTCOMES = ['succeeded', 'failed', 'not_applied'];

/**
 * `harness reconcile <id>`: settle an invocation whose outcome is unknown. The signal is sent even when
 * the run is not waiting for it (the run records the rejection); exit 5 when it is rejected.
 */
export async function reconcileCommand(id: string, o: ReconcileOptions, out: Output): Promise<number> {
  const invocationSeq = parsePositiveInt('--invocation', o.invocation, true);
  if (!OUTCOMES.includes(o.outcome))
    throw usageError(`--outcome: expected one of ${OUTCOMES.join(', ')}, got ${JSON.stringify(o.outcome)}`, {
      option: '--outcome',
    });
  if (o.externalId !== undefined && (o.outcome !== 'succeeded' || o.externalId.trim() === ''))
    throw usageError('--external-id: needs a non-empty id and --outcome succeeded', {
      option: '--external-id',
    });
  const evidence = o.evidence === undefined ? undefined : readJsonObject('--evidence', o.evidence);
  return withRun(id, async (t, store, handle, before) => {
    const payload = {
      invocationSeq,
      outcome: o.outcome,
      actor: o.actor ?? defaultActor(),
      ...(o.externalId !== undefined ? { externalId: o.externalId } : {}),
      ...(evidence ? { evidence } : {}),
    };
    const expected = (v: RunView) =>
      v.pendingAction?.kind !== 'reconcile'
        ? {
            code: 'signal.no_pending_action',
            message: `the run is not waiting for reconciliation (status ${v.status})`,
          }
        : v.pendingAction.invocationSeq !== invocationSeq
          ? {
              code: 'signal.action_mismatch',
              message: `invocation ${invocationSeq} is not the one awaiting reconciliation (${v.pendingAction.invocationSeq})`,
            }
          : {
              code: 'signal.not_taken',
              message: 'the run did not take the reconciliation; see `harness events`',
            };
    return report(
      await sendDecision(t, store, handle, before, SIGNAL_NAMES.reconcile, payload, expected),
      out,
    );
  });
}

export interface ProvideInputOptions {
  readonly slot?: string;
  readonly value: string;
  readonly actor?: string;
}

/** `harness input <id> --value v [--slot s]`: answer a run waiting in `awaiting_input` (default: its slot). */
export async function provideInputCommand(id: string, o: ProvideInputOptions, out: Output): Promise<number> {
  return withRun(id, async (t, store, handle, before) => {
    const slot = o.slot ?? (before.pendingAction?.kind === 'input' ? before.pendingAction.slot : undefined);
    if (!slot) {
      throw refusedError(`run ${id} is not waiting for input (status ${before.status}); nothing sent`, {
        workflowId: id,
        status: before.status,
      });
    }
    const payload = { slot, value: o.value, actor: o.actor ?? defaultActor() };
    const expected = (v: RunView) =>
      v.pendingAction?.kind === 'input' && v.pendingAction.slot !== slot
        ? { code: 'signal.action_mismatch', message: `waiting for slot ${v.pendingAction.slot}, not ${slot}` }
        : { code: 'signal.not_taken', message: 'the run did not take the input; see `harness events`' };
    return report(
      await sendDecision(t, store, handle, before, SIGNAL_NAMES.provideInput, payload, expected),
      out,
    );
  });
}
