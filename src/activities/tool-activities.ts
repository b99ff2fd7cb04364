import { taintDigestsOf } from '../workflows/index.js';
import type { TaintDigests } from '../contract/step-io.js';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { isHarnessError } from '../contract/errors.js';
import { TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN } from '../contract/failure-types.js';
import type { ToolCall, ToolContext, ToolExecution } from '../contract/tool.js';
import type { ToolRegistry } from '../registry/index.js';
import type { OperatorResolutionOutcome, ToolCallResult, WriteResolution } from '../contract/step-io.js';
import type {
  OperatorResolutionActivityInput,
  ToolActivities,
  AnyToolCallActivityInput,
  ToolCallActivityInput,
  ToolCallActivityInputV2,
} from '../contract/activity-interfaces.js';
import {
  StoreError,
  type EvidenceStore,
  type InvocationIntent,
  type InvocationRecord,
  type InvocationResult,
  type StoredEvent,
} from './store/index.js';
import { completeToolInput, type CompactToolInput } from '../contract/compact-step-input.js';
import { toolCallDerivation } from '../contract/packed-events-by-ref.js';
import { callingWorkflowId } from './calling-workflow-id.js';
import { eventsOf, storeEvents } from './store-events.js';
import { sha256Digest } from './digest.js';

export interface ToolActivityDeps {
  readonly registry: ToolRegistry;
  readonly store: EvidenceStore;
  readonly identity: string;
}

const OPERATOR_STATUS = {
  succeeded: 'succeeded',
  failed: 'failed_terminal',
  not_applied: 'not_applied',
} as const;

function toolContext(): ToolContext {
  const ctx = Context.current();
  return { signal: ctx.cancellationSignal, heartbeat: (d?: unknown) => ctx.heartbeat(d) };
}

function toCall(input: AnyToolCallActivityInput): ToolCall {
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
 * Most characters of a tool's output (as JSON) returned to the workflow. Larger outputs stay whole in
 * the evidence store (the model reads results from there by reference); the workflow, and so the
 * history, gets `{ truncated: true, chars, preview }` with the first 8,000 characters.
 */
export const MAX_TOOL_RESULT_OUTPUT_CHARS = 64 * 1024;

function boundedOutput(
  output: Readonly<Record<string, unknown>> | undefined,
): Readonly<Record<string, unknown>> | undefined {
  if (output === undefined) return undefined;
  const text = JSON.stringify(output);
  if (text.length <= MAX_TOOL_RESULT_OUTPUT_CHARS) return output;
  return { truncated: true, chars: text.length, preview: text.slice(0, 8_000) };
}

function fromStored(
  result: InvocationResult,
  startedAt: string,
  artifacts: ToolCallResult['artifacts'],
): ToolCallResult {
  return {
    status: result.status === 'succeeded' ? 'succeeded' : 'failed_terminal',
    output: boundedOutput(result.output),
    artifacts,
    externalId: result.externalId,
    errorCode: result.errorCode ?? (result.status === 'succeeded' ? undefined : `tool.${result.status}`),
    errorMessage: result.errorMessage,
    startedAt,
    finishedAt: result.recordedAt,
    ...taintOf(result.runId, result.output, artifacts),
    attempt: result.attempt,
  };
}

/** `{ taint }` when the result held secrets or personal data or was not read in full, else nothing. */
function taintOf(
  runId: string,
  output: Readonly<Record<string, unknown>> | undefined,
  artifacts: ToolCallResult['artifacts'],
): { taint?: TaintDigests } {
  // The run's own id, where a tool echoes it, is not data it read.
  const taint = taintDigestsOf(
    { output: output ?? null, artifacts: artifacts.map((a) => a.data ?? null) },
    new Set([runId]),
  );
  const found = taint.secret.length > 0 || taint.personal.length > 0;
  return found || taint.unscanned !== undefined ? { taint } : {};
}

async function storedResult(
  store: EvidenceStore,
  runId: string,
  seq: number,
): Promise<ToolCallResult | undefined> {
  return storedResultOf(store, await store.getInvocation(runId, seq));
}

/** The stored result of an invocation already read, with its artifacts; undefined without a result. */
async function storedResultOf(
  store: EvidenceStore,
  record: InvocationRecord | undefined,
): Promise<ToolCallResult | undefined> {
  if (!record?.result) return undefined;
  const ids = new Set(record.result.artifactIds);
  const artifacts = (await store.listArtifacts(record.runId)).filter((a) => ids.has(a.id));
  const plain = artifacts.map(({ runId: _r, seq: _s, attempt: _a, digest: _d, recordedAt: _t, ...a }) => a);
  return fromStored(record.result, record.intents[0]?.recordedAt ?? record.result.recordedAt, plain);
}

/**
 * The tool activities. `runTool` follows the durable order of seed 000 §5: the intent is durable before
 * the executor runs; result and artifacts are written in one transaction; only a bounded result goes
 * back to the workflow. `resolveLostInvocation` settles a write whose activity was lost.
 */
export function createToolActivities(deps: ToolActivityDeps): ToolActivities {
  const { registry, store, identity } = deps;

  /**
   * One attempt of a call. Failure semantics (docs/durability.md "Which failures are which"):
   * - before the executor runs (unknown tool, the intent cannot be recorded): nothing happened; a
   *   write fails `tool.not_started` (the run may try it again), a read is retried;
   * - the executor throws a harness error: its own business failure, recorded as `failed_terminal`;
   * - anything else after the executor was called, for a write (it threw something else, or its
   *   result or artifacts cannot be recorded: store down, record refused, oversized): the effect may
   *   have happened, so the attempt ends `tool.outcome_unknown` and the run settles it through the
   *   evidence store, the tool's reconciler, or a person. A read is simply retried.
   */
  async function execute(
    input: AnyToolCallActivityInput,
    attempt: number,
    events: readonly StoredEvent[],
  ): Promise<ToolCallResult> {
    const startedAt = new Date().toISOString();
    const executor = await beforeEffect(input, async () => {
      const found = registry.get(input.tool, input.version).executor;
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
      await store.recordIntentWithEvents(intent, events);
      return found;
    });
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
        await afterEffect(input, 'could not record its failure', () => store.recordResult(result, []));
        return fromStored(result, startedAt, []);
      }
      if (input.effect === 'write') throw outcomeUnknown(input, 'threw after its intent was recorded', err);
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
      return fromStored(result, startedAt, artifacts);
    });
  }

  /**
   * Run one tool invocation (one attempt). A write that fails before its executor is called fails
   * `tool.not_started` (nothing happened; the run may try it again).
   */
  const runTool = async (input: AnyToolCallActivityInput): Promise<ToolCallResult> => {
    const attempt = input.attempt ?? Context.current().info.attempt;
    const found = await beforeEffect(input, async () => {
      // The run's events go in the transaction of the intent; an attempt that returns a result
      // recorded earlier stores them alone. A failed attempt may leave them: the run sends them again
      // (ToolPipeline.invoke).
      const events = await eventsOf(store, input.events, {
        derive: toolCallDerivation(input),
        runId: input.runId,
      });
      const record = await store.getInvocation(input.runId, input.seq);
      // On a run's new attempt, the result of an earlier one is what made it try again (not applied).
      const stale = input.attempt !== undefined && (record?.result?.attempt ?? 0) < input.attempt;
      const existing = stale ? undefined : await storedResultOf(store, record);
      if (existing) await store.appendEvents(events);
      return { events, existing };
    });
    if (found.existing) return found.existing; // this attempt finished but its completion was lost
    return execute(input, attempt, found.events);
  };

  return {
    runTool,
    // The same under the name runs scheduled by this release call, with the compact input (an older
    // worker would not read it).
    runToolV2: (input: CompactToolInput<ToolCallActivityInputV2>) =>
      runTool(completeToolInput(input, callingWorkflowId(), sha256Digest)),

    /**
     * Settle a write whose activity was lost: ask the store, then the tool's reconciler. Never runs the
     * executor again.
     */
    async resolveLostInvocation(input: ToolCallActivityInput): Promise<WriteResolution> {
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
    },

    /**
     * Record a person's reconciliation of a write whose outcome was unknown as the invocation's result
     * (source `operator`, the actor and evidence kept). When the store already holds a result (the
     * executor finished after all, or a reconciler answered), that result stands and is returned.
     * Idempotent: a retry after a lost completion finds its own record and answers `recorded`.
     * @throws `store.no_intent` (non-retryable) when the invocation has no recorded intent.
     */
    async recordOperatorResolution(
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
          message: `${call.tool}@${call.version} #${call.seq} has no recorded intent to reconcile`,
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
    },
  };
}

/**
 * Run what precedes an executor call. For a write, a failure there is `tool.not_started`: the effect
 * provably did not happen. For a read it propagates (and the read is retried).
 */
async function beforeEffect<T>(input: AnyToolCallActivityInput, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (input.effect !== 'write') throw err;
    throw ApplicationFailure.create({
      type: TOOL_NOT_STARTED,
      nonRetryable: true,
      message: `${input.tool}@${input.version} #${input.seq} did not start: ${errorText(err)}`,
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
    message: `${input.tool}@${input.version} #${input.seq} ${stage}: ${errorText(err)}`,
  });
}

function errorText(err: unknown): string {
  return (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 2000);
}

function storedOrRecorded(result: ToolCallResult | undefined): OperatorResolutionOutcome {
  return result === undefined ? { kind: 'recorded' } : { kind: 'result_recorded', result };
}
