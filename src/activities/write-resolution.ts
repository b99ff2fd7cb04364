/**
 * Settling a write whose outcome is unknown: by the result the store holds, by the tool's
 * reconciler, or by a person's decision. Never runs the executor again.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type {
  OperatorResolutionActivityInput,
  ToolCallActivityInput,
} from '../contract/activity-interfaces.js';
import type { OperatorResolutionOutcome, ToolCallResult, WriteResolution } from '../contract/step-io.js';
import type { ToolRegistry } from '../registry/index.js';
import { StoreError, type EvidenceStore } from './store/index.js';
import { storeEvents } from './store-events.js';
import { toCall, toolContext } from './tool-attempt.js';
import { fromStored, storedResult, storedResultOf } from './tool-results.js';
import { versionedName } from '../contract/versioned-name.js';

/** The result status a person's outcome is recorded as. */
const OPERATOR_STATUS = {
  succeeded: 'succeeded',
  failed: 'failed_terminal',
  not_applied: 'not_applied',
} as const;

/**
 * Settle a write whose activity was lost: ask the store, then the tool's reconciler. Never runs the
 * executor again. A reconciler that throws (its system is down) leaves the outcome `unknown`.
 * @throws the store's errors and the registry's for a tool it does not hold; the reconciler's error
 *   when the activity was cancelled.
 */
export async function resolveLostInvocation(
  registry: ToolRegistry,
  store: EvidenceStore,
  input: ToolCallActivityInput,
): Promise<WriteResolution> {
  await storeEvents(store, input.events);
  const record = await store.getInvocation(input.runId, input.seq);
  const latest = record?.intents[record.intents.length - 1]?.attempt ?? 0;
  // This attempt never recorded its intent (what the store holds belongs to earlier attempts).
  if (latest < (input.attempt ?? 1)) return { kind: 'no_intent' };
  const known = await storedResultOf(store, record);
  if (known) return { kind: 'result_recorded', result: known };
  if (!record || record.intents.length === 0) return { kind: 'no_intent' };
  const { executor } = registry.get(input.tool, input.version);
  if (!executor.reconcile) return { kind: 'unknown' };
  let outcome: Awaited<ReturnType<NonNullable<typeof executor.reconcile>>>;
  try {
    outcome = await executor.reconcile(toolContext(), toCall(input));
  } catch (err) {
    if (Context.current().cancellationSignal.aborted) throw err;
    // A reconciler that cannot tell (its system is down, it threw): a person decides.
    Context.current().log.warn('reconciler failed; the outcome stays unknown', {
      error: (err as Error).message,
    });
    return { kind: 'unknown' };
  }
  const attempt = record.intents[record.intents.length - 1]!.attempt;
  const recordedAt = new Date().toISOString();
  if (outcome.outcome === 'succeeded') {
    const artifacts = (outcome.execution.artifacts ?? []).map((a) => ({ ...a }));
    const result = {
      runId: input.runId,
      seq: input.seq,
      attempt,
      status: 'succeeded' as const,
      output: { ...outcome.execution.output },
      externalId: outcome.execution.externalId,
      artifactIds: artifacts.map((a) => a.id),
      recordedAt,
      source: 'reconciler' as const,
      evidence: { check: 'reconcile', tool: input.tool },
    };
    await store.recordResolution(result, artifacts);
    return { kind: 'reconciled_succeeded', result: fromStored(result, recordedAt, artifacts) };
  }
  if (outcome.outcome === 'not_applied') {
    await store.recordResolution({
      runId: input.runId,
      seq: input.seq,
      attempt,
      status: 'not_applied',
      artifactIds: [],
      recordedAt,
      source: 'reconciler',
      evidence: { check: 'reconcile', tool: input.tool },
    });
    return { kind: 'reconciled_not_applied' };
  }
  return { kind: 'unknown' };
}

/**
 * Record a person's reconciliation of a write whose outcome was unknown as the invocation's result
 * (source `operator`, the actor and evidence kept). When the store already holds a result (the
 * executor finished after all, or a reconciler answered), that result stands and is returned.
 * Idempotent: a retry after a lost completion finds its own record and answers `recorded`.
 * @throws ApplicationFailure `store.no_intent` (non-retryable) when the invocation has no recorded
 *   intent; the store's errors as thrown.
 */
export async function recordOperatorResolution(
  store: EvidenceStore,
  input: OperatorResolutionActivityInput,
): Promise<OperatorResolutionOutcome> {
  const { call } = input;
  await storeEvents(store, call.events);
  const record = await store.getInvocation(call.runId, call.seq);
  const last = record?.intents[record.intents.length - 1];
  if (!record || !last)
    throw ApplicationFailure.create({
      type: 'store.no_intent',
      nonRetryable: true,
      message: `${versionedName(call.tool, call.version)} #${call.seq} has no recorded intent to reconcile`,
    });
  if (record.result !== undefined)
    return record.result.source === 'operator'
      ? { kind: 'recorded' }
      : storedOrRecorded(await storedResultOf(store, record));
  try {
    await store.recordResolution({
      runId: call.runId,
      seq: call.seq,
      attempt: last.attempt,
      status: OPERATOR_STATUS[input.outcome],
      ...(input.externalId !== undefined ? { externalId: input.externalId } : {}),
      artifactIds: [],
      recordedAt: new Date().toISOString(),
      source: 'operator',
      evidence: { actor: input.actor, ...input.evidence },
    });
    return { kind: 'recorded' };
  } catch (err) {
    if (!(err instanceof StoreError) || err.code !== 'store.conflict') throw err;
    // Another result landed between the read and the write: it stands.
    return storedOrRecorded(await storedResult(store, call.runId, call.seq));
  }
}

/** `recorded`, or the result that stands when the store holds one. */
function storedOrRecorded(result: ToolCallResult | undefined): OperatorResolutionOutcome {
  return result === undefined ? { kind: 'recorded' } : { kind: 'result_recorded', result };
}
