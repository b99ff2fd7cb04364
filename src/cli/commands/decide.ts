import type { WorkflowHandle } from '@temporalio/client';
import { isHarnessError } from '../../contract/errors.js';
import type { DecisionOutcome, DecisionSignalName } from '../../contract/signals.js';
import type { RunView } from '../../contract/run-view.js';
import { loadDecisionKey, type DecisionKey } from '../../client/decisions/decision-key.js';
import { sendDecision, signedPayload, type PendingTarget } from '../../client/decisions/send-decision.js';
import { connectTemporal, describeRun, type CliTemporal } from '../connect.js';
import { EXIT, refusedError, usageError } from '../errors.js';
import type { Output } from '../output.js';
import { confirmPending, pendingReview, type PendingReview } from '../pending-review.js';
import { parsePositiveInt, readJsonObject } from '../read-json.js';
import { isClosed, queryState } from '../run-access.js';

/** Options every decision command takes. */
export interface SigningOptions {
  /** The signing key file (default `HARNESS_KEY`). */
  readonly key?: string;
  /** Print the signed payload (for `temporal workflow signal --input`) instead of sending it. */
  readonly print?: boolean;
}

/**
 * The operator's signing key: `--key`, else the file named by `HARNESS_KEY`.
 * @throws CliError `cli.usage` (exit 2) when neither is given or the file is not a key.
 */
export function signingKey(o: SigningOptions, env: NodeJS.ProcessEnv = process.env): DecisionKey {
  const path = o.key ?? env.HARNESS_KEY;
  if (!path)
    throw usageError(
      'a decision is signed: pass --key <file> or set HARNESS_KEY (create one with `harness keys create`)',
      { option: '--key' },
    );
  try {
    return loadDecisionKey(path);
  } catch (err) {
    if (isHarnessError(err)) throw usageError(`--key: ${err.message}`, { option: '--key', code: err.code });
    throw err;
  }
}

function report(
  workflowId: string,
  signal: string,
  outcome: DecisionOutcome,
  out: Output,
  pending?: PendingReview,
): number {
  out.data({ workflowId, signal, ...outcome, ...(pending ? { pending } : {}) });
  if (outcome.accepted) {
    const approvals = outcome.approvals
      ? ` (${outcome.approvals.have} of ${outcome.approvals.need} approvals)`
      : '';
    out.line(`${signal} accepted by ${workflowId} from ${outcome.principal ?? 'the caller'}${approvals}`);
    return EXIT.ok;
  }
  out.line(`${signal} refused by ${workflowId}: ${outcome.code}: ${outcome.message}`);
  return EXIT.refused;
}

/**
 * Review, then sign `fields` for the pending action and send them by the `decide` update (the answer
 * comes back at once), or print the signed payload with `--print`. `review` picks the action to decide
 * and shows it (and, for an unnamed action, asks for a confirmation) before the key is used.
 * Exit 5 when the run refuses it; nothing is signed when the review throws.
 */
async function signAndSend(
  id: string,
  o: SigningOptions,
  signal: DecisionSignalName,
  fields: Record<string, unknown>,
  review: (v: RunView) => Promise<{ target: PendingTarget; pending: PendingReview }>,
  out: Output,
): Promise<number> {
  const key = signingKey(o);
  return withRun(id, async (_t, handle, before) => {
    const { target, pending } = await review(before);
    const payload = signedPayload(key, before, signal, fields, target);
    if (o.print) {
      out.data({ workflowId: id, signal, payload, pending });
      out.line(JSON.stringify(payload));
      return EXIT.ok;
    }
    return report(id, signal, await sendDecision(handle, signal, payload), out, pending);
  });
}

async function withRun<T>(
  id: string,
  fn: (t: CliTemporal, handle: WorkflowHandle, before: RunView) => Promise<T>,
): Promise<T> {
  const t = await connectTemporal();
  try {
    const handle = t.client.workflow.getHandle(id);
    const exec = await describeRun(handle);
    if (isClosed(exec.status))
      throw refusedError(`run ${id} is closed (${exec.status}); it takes no more decisions`, {
        workflowId: id,
        executionStatus: exec.status,
      });
    return await fn(t, handle, await queryState(t, handle));
  } finally {
    await t.close();
  }
}

/**
 * The approval-like action to decide, shown with its tool, version, argument digest and arguments:
 * `--action` must name the pending one (the token binds its id and argument digest, so a decision never
 * lands on another action); without `--action` the operator confirms it at the terminal, and with no
 * terminal nothing is signed (see {@link confirmPending}).
 * @throws CliError `cli.refused` (exit 5) when the run waits for no decision or for another action,
 *   `cli.action_required` / `cli.declined` (exit 2) without `--action` and a `y` at the terminal.
 */
async function decisionTarget(
  id: string,
  verb: string,
  v: RunView,
  given: string | undefined,
  out: Output,
): Promise<{ target: PendingTarget; pending: PendingReview }> {
  const p = v.pendingAction;
  const pending = pendingReview(v);
  if (!p || !pending || (p.kind !== 'confirmation' && p.kind !== 'human')) {
    throw refusedError(`run ${id} is not waiting for a decision (status ${v.status}); nothing sent`, {
      workflowId: id,
      status: v.status,
    });
  }
  await confirmPending(id, verb, pending, given, out);
  return {
    target: { actionId: p.actionId, ...(p.argsDigest !== undefined ? { argsDigest: p.argsDigest } : {}) },
    pending,
  };
}

export interface DecideOptions extends SigningOptions {
  readonly action?: string;
  readonly reason?: string;
}

/** Approve or confirm the pending action (an optional reason), signed. */
function decidePending(signal: 'approve' | 'confirm', id: string, o: DecideOptions, out: Output) {
  const fields = o.reason ? { reason: o.reason } : {};
  return signAndSend(id, o, signal, fields, (v) => decisionTarget(id, signal, v, o.action, out), out);
}

/** `harness approve <id>`: approve the pending action, signed. Exit 5 when the run refuses it. */
export async function approveCommand(id: string, o: DecideOptions, out: Output): Promise<number> {
  return decidePending('approve', id, o, out);
}

/** `harness confirm <id>`: the customer's confirmation of the pending action, signed. */
export async function confirmCommand(id: string, o: DecideOptions, out: Output): Promise<number> {
  return decidePending('confirm', id, o, out);
}

/** `harness reject <id> --reason r`: reject the pending action, signed. Exit 5 when the run refuses it. */
export async function rejectCommand(id: string, o: DecideOptions, out: Output): Promise<number> {
  if (!o.reason) throw usageError('--reason: required for reject', { option: '--reason' });
  return signAndSend(
    id,
    o,
    'reject',
    { reason: o.reason },
    (v) => decisionTarget(id, 'reject', v, o.action, out),
    out,
  );
}

export interface MoreInfoOptions extends DecideOptions {
  readonly question?: string;
}

/**
 * `harness request-more-info <id> --question q`: instead of deciding, ask the run's requester a
 * question about the pending action, signed (docs/signals.md). Exit 5 when the run refuses it.
 */
export async function requestMoreInfoCommand(id: string, o: MoreInfoOptions, out: Output): Promise<number> {
  const question = o.question?.trim();
  if (!question) throw usageError('--question: required', { option: '--question' });
  return signAndSend(
    id,
    o,
    'requestMoreInfo',
    { question },
    (v) => decisionTarget(id, 'ask about', v, o.action, out),
    out,
  );
}

export interface ReconcileOptions extends SigningOptions {
  readonly invocation: string;
  readonly outcome: string;
  readonly externalId?: string;
  readonly evidence?: string;
}

const OUTCOMES = ['succeeded', 'failed', 'not_applied'];

/** `harness reconcile <id>`: settle an invocation whose outcome is unknown, signed. Exit 5 when refused. */
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
  const fields = {
    invocationSeq,
    outcome: o.outcome,
    ...(o.externalId !== undefined ? { externalId: o.externalId } : {}),
    ...(evidence ? { evidence } : {}),
  };
  return signAndSend(
    id,
    o,
    'reconcile',
    fields,
    async (v) => {
      const pending = pendingReview(v);
      if (v.pendingAction?.kind !== 'reconcile' || !pending)
        throw refusedError(`run ${id} is not waiting for reconciliation (status ${v.status}); nothing sent`, {
          workflowId: id,
          status: v.status,
        });
      // `--invocation` names what is settled: it must be the pending one (a token binds one action).
      if (v.pendingAction.invocationSeq !== undefined && v.pendingAction.invocationSeq !== invocationSeq)
        throw refusedError(
          `run ${id} waits to reconcile invocation #${v.pendingAction.invocationSeq}, not #${invocationSeq}; nothing sent`,
          { workflowId: id, pendingActionId: pending.actionId, invocationSeq: v.pendingAction.invocationSeq },
        );
      await confirmPending(id, 'reconcile', pending, pending.actionId, out);
      return { target: { actionId: v.pendingAction.actionId }, pending };
    },
    out,
  );
}

export interface ProvideInputOptions extends SigningOptions {
  readonly slot?: string;
  readonly value: string;
}

/** `harness input <id> --value v [--slot s]`: answer a run waiting in `awaiting_input`, signed. */
export async function provideInputCommand(id: string, o: ProvideInputOptions, out: Output): Promise<number> {
  return withRun(id, async (_t, handle, before) => {
    const slot = o.slot ?? (before.pendingAction?.kind === 'input' ? before.pendingAction.slot : undefined);
    if (!slot || before.pendingAction?.kind !== 'input')
      throw refusedError(`run ${id} is not waiting for input (status ${before.status}); nothing sent`, {
        workflowId: id,
        status: before.status,
      });
    const key = signingKey(o);
    const payload = signedPayload(
      key,
      before,
      'provideInput',
      { slot, value: o.value },
      before.pendingAction,
    );
    if (o.print) {
      out.data({ workflowId: id, signal: 'provideInput', payload });
      out.line(JSON.stringify(payload));
      return EXIT.ok;
    }
    return report(id, 'provideInput', await sendDecision(handle, 'provideInput', payload), out);
  });
}
