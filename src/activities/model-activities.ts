import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { storeRequestPackage } from './context/package-store.js';
import type { ContextPackage } from './context/types.js';
import { toApplicationFailure } from './model/to-application-failure.js';
import type { ToolRegistry } from '../registry/index.js';
import type { ModelDecision, ToolOutputFinding } from '../contract/step-io.js';
import type {
  AnyModelCallActivityInput,
  CompactModelInputV3,
  ModelActivities,
  ModelCallActivityInputV2,
} from '../contract/activity-interfaces.js';
import type { EvidenceStore } from './store/index.js';
import type { ModelRouter } from './model-router.js';
import { completeModelInput, type CompactModelInput } from '../contract/compact-step-input.js';
import { modelCallDerivation } from '../contract/packed-events-by-ref.js';
import { callingWorkflowId } from './calling-workflow-id.js';
import { restoreModelInputV3 } from './step-input-v3.js';
import { ModelDeltaWriter } from './model-deltas.js';
import { ModelRequestPlanner, type ModelRequest } from './model-request.js';
import { firstAnswer, loadTranscript, type ContextRef, type MessageGroupBody } from './model-transcript.js';
import { eventsOf } from './store-events.js';
import { TranscriptCache } from './transcript-cache.js';
import { intervalHeadsOf } from './attestation/signed-head.js';
import type { ChainHeadSigner } from './attestation/chain-head-signer.js';
import type { StoredEvent } from '../contract/store-records.js';
import { refuseChangedConfig, type RunConfigSources } from './run-config-digest.js';
import { resolveModelRoute } from './resolve-model-route.js';
import { attemptTag } from './attempt-tag.js';

export interface ModelActivityDeps extends RunConfigSources {
  readonly registry: ToolRegistry;
  readonly store: EvidenceStore;
  readonly models: ModelRouter;
  /** The transcripts built by earlier calls (default: a new cache per {@link createModelActivities}). */
  readonly transcripts?: TranscriptCache;
  /** The worker's attestation key: a decision carries the interval heads of the events it stored. */
  readonly attestation?: ChainHeadSigner;
}

/**
 * The largest model answer a run takes: its text in characters, and the whole decision (text and
 * tool calls) in UTF-8 bytes of JSON. Above either, the call fails `model.output_too_large`
 * (non-retryable: the same request would be answered alike) and the run ends with that code: the
 * answer would otherwise sit in workflow state and the next activity's input, toward Temporal's 2 MB
 * payload limit, and the message group over the evidence store's 1 MiB record bound. Well above
 * what one check of the output guardrail reads (65,536 characters, which blocks longer answers).
 */
export const MAX_MODEL_TEXT_CHARS = 262_144;
export const MAX_MODEL_DECISION_BYTES = 524_288;

/** @throws ApplicationFailure `model.output_too_large` (non-retryable) when the answer is over its bounds. */
function assertAnswerBounded(decision: Omit<ModelDecision, 'replayed'>): void {
  const text = decision.text.length;
  const whole = text > MAX_MODEL_TEXT_CHARS ? text : Buffer.byteLength(JSON.stringify(decision));
  if (text <= MAX_MODEL_TEXT_CHARS && whole <= MAX_MODEL_DECISION_BYTES) return;
  throw ApplicationFailure.create({
    type: 'model.output_too_large',
    nonRetryable: true,
    message: `the model answered ${text} characters of text and ${decision.toolCalls.length} tool calls (${whole} bytes as JSON); the bounds are ${MAX_MODEL_TEXT_CHARS} characters and ${MAX_MODEL_DECISION_BYTES} bytes`,
  });
}

/** Most tool output findings one model call reports (the package keeps every one). */
const MAX_TOOL_OUTPUT_FINDINGS = 20;

/**
 * The flagged tool results among this call's own new messages (each result is new in exactly one
 * call, so each finding is reported once), for the run's `guardrail.tool_output_flagged` event.
 */
function toolOutputFindingsOf(
  pkg: ContextPackage,
  runId: string,
  callSeq: number,
): { toolOutputFindings?: ToolOutputFinding[] } {
  const own = `${runId}:m${callSeq}:`;
  const found = pkg.items
    .filter((i) => i.kind === 'tool_fact' && i.guardrail !== undefined && i.itemId.startsWith(own))
    .slice(0, MAX_TOOL_OUTPUT_FINDINGS)
    .map((i) => ({
      sourceRef: i.sourceRef,
      verdict: i.guardrail!.verdict,
      reasonCodes: [...i.guardrail!.reasonCodes],
      ...(i.withheldOf !== undefined ? { withheld: true as const } : {}),
    }));
  return found.length > 0 ? { toolOutputFindings: found } : {};
}

/**
 * The model activity: loads earlier message groups from the evidence store (history carries only
 * references; a worker keeps the transcripts it built, see {@link TranscriptCache}), plans the
 * request ({@link ModelRequestPlanner}) and stores its package with the run's events, streams the
 * provider's answer with deltas to the store (live, outside history), stores the new group
 * idempotently by (run, call number) and returns a compact decision. A retry after a completed call
 * returns the stored answer, so usage is counted once. Failures: until the package is stored, as
 * {@link ModelRequestPlanner.plan} and the store's errors as thrown; from the provider call on, as
 * `answer`.
 */
export function createModelActivities(deps: ModelActivityDeps): ModelActivities {
  const { store } = deps;
  const transcripts = deps.transcripts ?? new TranscriptCache();
  const planner = new ModelRequestPlanner(deps);
  // Interval heads of the events stored with the call; one that cannot be signed is left out (the
  // next head covers its events), so signing never costs a provider call again.
  const headsOf = (events: readonly StoredEvent[]): Promise<string[]> =>
    deps.attestation && events.length > 0 && !Context.current().info.isLocal
      ? intervalHeadsOf(store, deps.attestation, events).catch(() => [])
      : Promise.resolve([]);

  const callModel = async (input: AnyModelCallActivityInput): Promise<ModelDecision> => {
    // A run's config pin: a worker with another configuration refuses before anything is recorded,
    // and so does one that cannot serve the call's summarize route (the run reschedules both).
    refuseChangedConfig(deps, input.configPin, { runId: input.runId, what: `model call #${input.callSeq}` });
    if (input.configPin !== undefined && input.summarizeRoute !== undefined)
      resolveModelRoute(deps.models, input.summarizeRoute.route, input.summarizeRoute.digest, true);
    // The run's events go in the transaction of the request package. An attempt that ends before it
    // stores them only when it answers: the run sends a failed call's events again (Runner.model).
    const events = await eventsOf(store, input.events, {
      derive: modelCallDerivation(input),
      runId: input.runId,
    });
    const priority = input.contextOrder === 'priority';
    const transcript = await loadTranscript(store, transcripts, input.runId, input.callSeq, priority);
    // A fast try's events (a local activity) are provisional, as a last flush's: its task may be retried.
    const provisional = Context.current().info.isLocal;
    if (transcript.answered) {
      await (provisional ? store.appendLastFlush(events) : store.appendEvents(events));
      return withHeads({ ...transcript.answered.output, replayed: true }, await headsOf(events));
    }
    const request = await planner.plan(input, transcript);
    transcripts.set(input.runId, {
      throughSeq: input.callSeq - 1,
      groups: transcript.groups,
      summaries: request.summaries,
      memo: request.memo,
    });
    const pkg = request.plan.pkg;
    const blob = await storeRequestPackage(store, pkg, request.plan.turnOf, events, { provisional });
    const heads = await headsOf(events);
    const context: ContextRef = {
      packageId: pkg.packageId,
      ref: blob.ref,
      digest: blob.digest,
      totalTokens: pkg.totalTokenEstimate,
      omitted: pkg.omittedItemRefs,
      ...(pkg.omittedTurns ? { omittedTurns: pkg.omittedTurns } : {}),
      ...(request.made.calls > 0 ? { summaries: request.made } : {}),
    };
    return withHeads(await answer(store, input, request, context), heads);
  };
  // One implementation under every name: `callModelV2` and `callModelV3` are what runs scheduled by
  // later releases call (their inputs are compact forms an older worker would not read).
  return {
    callModel,
    callModelV2: (input: CompactModelInput<ModelCallActivityInputV2>) =>
      callModel(completeModelInput(input, callingWorkflowId())),
    callModelV3: async (input: CompactModelInputV3) =>
      callModel(await restoreModelInputV3(store, input, callingWorkflowId())),
  };
}

/** `decision` with the interval heads of its call, when there are any. */
function withHeads(decision: ModelDecision, heads: readonly string[]): ModelDecision {
  return heads.length > 0 ? { ...decision, heads } : decision;
}

/**
 * Streams the provider's answer to `request` (its deltas to the store as they come), bounds it, and
 * stores the call's message group with the last deltas in one transaction. When another attempt of
 * the call stored its answer first, that answer is returned (`replayed`).
 * @throws ApplicationFailure `model.output_too_large` (non-retryable) when the answer is over its
 *   bounds; any other error (the provider's, the store's) through {@link toApplicationFailure}: a
 *   ModelError keeps its code and retryability, anything else is a non-retryable `model.provider_error`.
 */
async function answer(
  store: EvidenceStore,
  input: AnyModelCallActivityInput,
  request: ModelRequest,
  context: ContextRef,
): Promise<ModelDecision> {
  const { route, tools, outputReserve, made } = request;
  const ctx = Context.current();
  // A fallback is another call of the same number: its deltas go under their own id, and so do a
  // fast try's (`l<attempt>`) and the regular activity's after it (`a<attempt>`).
  const fallback = input.fallback ? `:f${input.fallback}` : '';
  const callId = `${input.runId}:m${input.callSeq}${fallback}:${attemptTag()}`;
  const deltas = new ModelDeltaWriter(store, input.runId, callId, (d) => ctx.heartbeat(d));
  try {
    const output = await route.provider.stream(
      {
        callId,
        purpose: input.purpose,
        model: route.model,
        messages: request.plan.messages,
        tools: tools.length ? tools : undefined,
        outputSchema: input.outputSchema ? { ...input.outputSchema } : undefined,
        ...(input.outputSchema && input.outputCheck ? { outputCheck: input.outputCheck } : {}),
        ...(input.invalidToolCalls ? { invalidToolCalls: input.invalidToolCalls } : {}),
        // A configured window bounds the answer by the reserve the request was planned with.
        ...(route.windowConfigured || route.maxOutputTokens !== undefined
          ? { maxOutputTokens: outputReserve }
          : {}),
      },
      { signal: ctx.cancellationSignal, onEvent: deltas.onEvent },
    );
    await deltas.settled();
    const decision: Omit<ModelDecision, 'replayed'> = {
      text: output.text,
      toolCalls: output.toolCalls.map((c) => ({
        id: c.id,
        name: c.name,
        version: c.version,
        args: c.args,
      })),
      stopReason: output.stopReason,
      // Summaries made for this request are counted with it, once (the group is stored once).
      usage: {
        inputTokens: output.usage.inputTokens + made.usage.inputTokens,
        outputTokens: output.usage.outputTokens + made.usage.outputTokens,
      },
      costUsd: output.costUsd + made.costUsd,
      providerModel: output.providerModel,
      provider: route.provider.name,
      ...toolOutputFindingsOf(request.plan.pkg, input.runId, input.callSeq),
      ...(output.invalidToolCalls ? { invalidToolCalls: output.invalidToolCalls } : {}),
    };
    assertAnswerBounded(decision);
    const body: MessageGroupBody = { input: input.newMessages, context, output: decision };
    try {
      // The last deltas go in the transaction of the answer.
      await deltas.withLast((last) =>
        store.appendMessageGroupWithDeltas(input.runId, input.callSeq, [body], callId, last),
      );
    } catch (err) {
      // Another attempt of this call stored its answer first (an attempt that timed out while
      // still running, then a retry on another worker: their packages differ in build time).
      // The first record stands: that answer is the call's, counted once.
      const first = await firstAnswer(err, store, input.runId, input.callSeq);
      if (first) return { ...first.output, replayed: true };
      throw err;
    }
    return {
      ...decision,
      replayed: false,
      context: { packageId: context.packageId, digest: context.digest },
      attempt: ctx.info.attempt,
    };
  } catch (err) {
    await deltas.settled().catch(() => undefined);
    await deltas.flush().catch(() => undefined);
    if (err instanceof ApplicationFailure) throw err;
    throw toApplicationFailure(err);
  }
}
