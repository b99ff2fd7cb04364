/**
 * One attempt of a tool call: its intent recorded before the executor runs, its result and artifacts
 * in one transaction after, and the failure semantics of a write around its effect.
 */
import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { AnyToolCallActivityInput } from '../contract/activity-interfaces.js';
import { isHarnessError } from '../contract/errors.js';
import {
  TOOL_DEFINITION_CHANGED,
  TOOL_NOT_STARTED,
  TOOL_OUTCOME_UNKNOWN,
} from '../contract/failure-types.js';
import type { ToolCallResult } from '../contract/step-io.js';
import type { ToolCall, ToolContext, ToolExecution } from '../contract/tool.js';
import { definitionDigest, type ToolRegistry } from '../registry/index.js';
import type { EvidenceStore, InvocationIntent, InvocationResult, StoredEvent } from './store/index.js';
import { fromStored } from './tool-results.js';
import { recordFailedReadAttempt } from './read-attempt-failure.js';
import type { ChainHeadSigner } from './attestation/chain-head-signer.js';
import { intervalHeadsOf, signedHeadNow } from './attestation/signed-head.js';
import { versionedName } from '../contract/versioned-name.js';

/** What one attempt uses: the tools, the evidence store, and the worker's identity (kept on the intent). */
export interface ToolAttemptDeps {
  readonly registry: ToolRegistry;
  readonly store: EvidenceStore;
  readonly identity: string;
  /** The worker's attestation key: a write's result carries the heads signed at its commit points. */
  readonly attestation?: ChainHeadSigner;
}

/**
 * The signed head of the run's chain at a write's commit point (`write.before`, `write.after`;
 * docs/evidence-chain.md, "Commit points"), or nothing for a read or a worker without a key.
 * @throws the store's errors.
 */
export async function writeHead(
  deps: Pick<ToolAttemptDeps, 'store' | 'attestation'>,
  input: AnyToolCallActivityInput,
  at: 'write.before' | 'write.after',
  events: readonly StoredEvent[],
): Promise<string[]> {
  if (input.effect !== 'write' || !deps.attestation) return [];
  const fromSeq = events[0]?.seq;
  const point = { at, call: input.seq, ...(fromSeq !== undefined ? { fromSeq } : {}) };
  const head = await signedHeadNow(deps.store, deps.attestation, input.runId, point);
  return head === undefined ? [] : [head];
}

/**
 * The interval heads (`every`, docs/evidence-chain.md) of the run's events this activity stored with
 * its input, or nothing for a worker without a key and for a fast read (a local activity: its events
 * are provisional until the workflow task completes).
 * @throws the store's errors.
 */
export async function intervalHeads(
  deps: Pick<ToolAttemptDeps, 'store' | 'attestation'>,
  events: readonly StoredEvent[],
): Promise<string[]> {
  if (!deps.attestation || events.length === 0 || Context.current().info.isLocal) return [];
  return intervalHeadsOf(deps.store, deps.attestation, events);
}

/** `result` with the heads of its attempt (interval heads, a write's commit points), when there are any. */
function withHeads(result: ToolCallResult, heads: readonly string[]): ToolCallResult {
  return heads.length > 0 ? { ...result, heads } : result;
}

/** The executor's context of the current activity: its cancellation signal and heartbeat. */
export function toolContext(): ToolContext {
  const ctx = Context.current();
  return { signal: ctx.cancellationSignal, heartbeat: (d?: unknown) => ctx.heartbeat(d) };
}

/** The call an executor (or reconciler) gets for activity input `input`. */
export function toCall(input: AnyToolCallActivityInput): ToolCall {
  return {
    runId: input.runId,
    seq: input.seq,
    tool: input.tool,
    version: input.version,
    args: input.args,
    idempotencyKey: input.idempotencyKey,
  };
}

/**
 * One attempt of a call. Failure semantics (docs/durability.md "Which failures are which"):
 * - before the executor runs (unknown tool, for a write a definition other than the one the run
 *   pinned (`worker.tool_definition_changed`), the intent cannot be recorded): nothing happened; a
 *   write fails `tool.not_started` (the run may try it again), a read is retried;
 * - the executor throws a harness error: its own business failure, recorded as `failed_terminal`;
 * - a read's executor throws anything else: retried by its retry policy; with `recordFailedAttempts`
 *   the attempt is recorded `failed_retryable` (or `failed_terminal` on its last attempt) first;
 * - anything else after the executor was called, for a write (it threw something else, or its
 *   result or artifacts cannot be recorded: store down, record refused, oversized): the effect may
 *   have happened, so the attempt ends `tool.outcome_unknown` and the run settles it through the
 *   evidence store, the tool's reconciler, or a person. A read is simply retried.
 * With an attestation key, a result carries the interval heads of the events stored with the intent,
 * and a write's the heads signed after its intent and after its result were stored (`heads`); signing
 * counts as the store write it follows. An attempt that fails returns no head (its events stay covered
 * by the next head of the chain).
 * @throws ApplicationFailure `tool.not_started` or `tool.outcome_unknown` (non-retryable) for a write as
 *   above; for a read, the error as thrown; the cancellation when the activity is cancelled.
 */
export async function executeTool(
  deps: ToolAttemptDeps,
  input: AnyToolCallActivityInput,
  attempt: number,
  events: readonly StoredEvent[],
): Promise<ToolCallResult> {
  const { registry, store, identity } = deps;
  const startedAt = new Date().toISOString();
  const prepared = await beforeEffect(input, async () => {
    const registered = registry.get(input.tool, input.version);
    refuseChangedDefinition(input, definitionDigest(registered.definition));
    const found = registered.executor;
    const intent: InvocationIntent = {
      runId: input.runId,
      seq: input.seq,
      attempt,
      tool: input.tool,
      version: input.version,
      effect: input.effect,
      argsDigest: input.argsDigest,
      args: { ...input.args },
      idempotencyKey: input.idempotencyKey,
      workerIdentity: identity,
      recordedAt: startedAt,
    };
    // A fast read's events (a local activity) are provisional, as a last flush's: its task may be retried.
    await store.recordIntentWithEvents(intent, events, { provisional: Context.current().info.isLocal });
    // Signed once the intent and the events before it are durable, before the executor runs.
    const interval = await intervalHeads(deps, events);
    return { found, before: [...interval, ...(await writeHead(deps, input, 'write.before', events))] };
  });
  const { found: executor, before } = prepared;
  let execution: ToolExecution;
  try {
    execution = await executor.execute(toolContext(), toCall(input));
  } catch (err) {
    if (Context.current().cancellationSignal.aborted) throw err;
    if (isHarnessError(err)) {
      const result: InvocationResult = {
        runId: input.runId,
        seq: input.seq,
        attempt,
        status: 'failed_terminal',
        errorCode: err.code,
        errorMessage: err.message.slice(0, 2000),
        artifactIds: [],
        recordedAt: new Date().toISOString(),
        source: 'executor',
      };
      const after = await afterEffect(input, 'could not record its failure', async () => {
        await store.recordResult(result, []);
        return writeHead(deps, input, 'write.after', events);
      });
      return withHeads(fromStored(result, startedAt, []), [...before, ...after]);
    }
    if (input.effect === 'write') throw outcomeUnknown(input, 'threw after its intent was recorded', err);
    if (input.recordFailedAttempts) await recordFailedReadAttempt(store, input, attempt, err);
    throw err; // a read: retried with backoff by its retry policy
  }
  return afterEffect(input, 'could not record its result', async () => {
    const artifacts = (execution.artifacts ?? []).map((a) => ({ ...a }));
    const result: InvocationResult = {
      runId: input.runId,
      seq: input.seq,
      attempt,
      status: 'succeeded',
      output: { ...execution.output },
      externalId: execution.externalId,
      artifactIds: artifacts.map((a) => a.id),
      recordedAt: new Date().toISOString(),
      source: 'executor',
    };
    await store.recordResult(result, artifacts);
    const after = await writeHead(deps, input, 'write.after', events);
    return withHeads(fromStored(result, startedAt, artifacts), [...before, ...after]);
  });
}

/**
 * Refuse a call whose run pinned another definition of the tool than this worker serves. A run that
 * reschedules refusals (`workerRefusal`, since `agent-run-worker-refusal-v1`) gets a non-retryable
 * refusal for reads and writes alike, which {@link beforeEffect} lets through as it is: the run
 * schedules the call again for another worker, and no attempt of the tool is spent. Older runs: only
 * a write is refused (a read passes, since its activity's few retries would fail the call).
 * @throws ApplicationFailure `worker.tool_definition_changed` (non-retryable with `workerRefusal`;
 *   else, for a write, turned into `tool.not_started` by {@link beforeEffect}).
 */
function refuseChangedDefinition(input: AnyToolCallActivityInput, served: string): void {
  const pinned = input.definitionDigest;
  if (pinned === undefined || pinned === served) return;
  const refuse = input.workerRefusal === true;
  if (!refuse && input.effect !== 'write') return;
  const message = `${TOOL_DEFINITION_CHANGED}: this worker's ${versionedName(input.tool, input.version)} is ${served}, the run pinned ${pinned}`;
  if (refuse)
    log.warn('tool call refused', { runId: input.runId, seq: input.seq, code: TOOL_DEFINITION_CHANGED });
  throw ApplicationFailure.create({ type: TOOL_DEFINITION_CHANGED, nonRetryable: refuse, message });
}

/** A refusal the run reschedules (see {@link refuseChangedDefinition}): it is not a failed start. */
function isWorkerRefusal(err: unknown): boolean {
  return (
    err instanceof ApplicationFailure && err.type === TOOL_DEFINITION_CHANGED && err.nonRetryable === true
  );
}

/**
 * Run what precedes an executor call. For a write, a failure there is `tool.not_started`: the effect
 * provably did not happen. For a read it propagates (and the read is retried).
 */
export async function beforeEffect<T>(
  input: Pick<AnyToolCallActivityInput, 'effect' | 'tool' | 'version' | 'seq'>,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (input.effect !== 'write' || isWorkerRefusal(err)) throw err;
    throw ApplicationFailure.create({
      type: TOOL_NOT_STARTED,
      nonRetryable: true,
      message: `${versionedName(input.tool, input.version)} #${input.seq} did not start: ${errorText(err)}`,
    });
  }
}

/**
 * Run what follows an executor call. For a write, any failure there leaves the outcome unknown (the
 * effect may have happened); for a read it propagates (and the read is retried).
 */
async function afterEffect<T>(
  input: AnyToolCallActivityInput,
  stage: string,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (input.effect !== 'write') throw err;
    throw outcomeUnknown(input, stage, err);
  }
}

/** The failure of a write attempt whose effect may have happened: never retried, settled by the run. */
function outcomeUnknown(input: AnyToolCallActivityInput, stage: string, err: unknown): ApplicationFailure {
  return ApplicationFailure.create({
    type: TOOL_OUTCOME_UNKNOWN,
    nonRetryable: true,
    message: `${versionedName(input.tool, input.version)} #${input.seq} ${stage}: ${errorText(err)}`,
  });
}

function errorText(err: unknown): string {
  return (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 2000);
}
